"""mkdocs hooks of the dory-wire site (scripts/site/mkdocs.yml).

- The API references, built by scripts/docs.sh into target/docs-api
  (DORY_DOCS_API overrides), become files of the site under api/, so links
  from the guides into them are checked by `mkdocs build --strict` like any
  other, and the nav's "API reference" section gets one link per package.
- reference.md (the overview of the references) lives here, next to this
  file: the repository's docs/ holds the guides only.
- A guide's relative link to a file of the repository outside docs/ (a test,
  a source file) points at that file on GitHub, where it is readable; one to
  a file that does not exist is left alone, so --strict reports it.
- A link to the published site itself (site_url, e.g. a guide's link into
  an API reference, which exists only in the built site: on GitHub it takes
  the reader to the published page) becomes a relative link, `X.html` of a
  guide `X.md`, so --strict and tests/docs/check_links.py check it.
"""

from __future__ import annotations

import os
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File
from mkdocs.structure.nav import Link, Section

SITE = Path(__file__).resolve().parent
ROOT = SITE.parents[1]
DOCS = ROOT / "docs"
API = Path(os.environ.get("DORY_DOCS_API", ROOT / "target" / "docs-api"))
BRANCH = "main"

# (nav title, page under the site's root): every public package.
REFERENCES = [
    ("Rust: dory-wire", "api/rust/dory_wire/index.html"),
    ("Rust: dory-wire-client", "api/rust/dory_wire_client/index.html"),
    ("Python: dory_wire", "api/python/dory_wire.html"),
    ("Python: dory_wire.client", "api/python/dory_wire/client.html"),
    ("JavaScript: dory-wire", "api/js/modules/index.html"),
    ("JavaScript: dory-wire/client", "api/js/modules/client.html"),
]

LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")
FENCE = re.compile(r"^(```|~~~)")


def on_files(files, config):
    if not API.is_dir():
        raise PluginError(f"{API} is missing: scripts/docs.sh builds the API references there first")
    for path in sorted(API.rglob("*")):
        if path.is_file():
            files.append(File.generated(config, "api/" + path.relative_to(API).as_posix(), abs_src_path=str(path)))
    files.append(File.generated(config, "reference.md", abs_src_path=str(SITE / "reference.md")))
    for _, page in REFERENCES:
        if files.get_file_from_path(page) is None:
            raise PluginError(f"the API reference page {page} was not generated")
    return files


def on_nav(nav, config, files):
    section = next(item for item in nav.items if isinstance(item, Section) and item.title == "API reference")
    for title, page in REFERENCES:
        link = Link(title, page)
        link.parent = section
        section.children.append(link)
    return nav


def _github(target: Path) -> str:
    kind = "tree" if target.is_dir() else "blob"
    config_url = "https://github.com/computeengines/dory-wire"
    return f"{config_url}/{kind}/{BRANCH}/{target.relative_to(ROOT).as_posix()}"


def on_page_markdown(markdown, page, config, files):
    source = Path(page.file.abs_src_path or "")
    if not source.is_file():
        return markdown
    here = posixpath.dirname(page.file.src_uri)
    out, fenced = [], False
    for line in markdown.split("\n"):
        if FENCE.match(line.lstrip()):
            fenced = not fenced
        if not fenced:
            line = LINK.sub(lambda m: _rewrite(m, source.parent, here, config, files), line)
        out.append(line)
    return "\n".join(out)


def _rewrite(match: re.Match, folder: Path, here: str, config, files) -> str:
    href = match.group(2)
    site = config.site_url or ""
    if site and href.startswith(site):
        path = href[len(site) :]
        if path.endswith(".html") and files.get_file_from_path(path[: -len(".html")] + ".md"):
            path = path[: -len(".html")] + ".md"
        relative = posixpath.relpath(path, here or ".")
        return f"{match.group(1)}{relative}{match.group(3) or ''}{match.group(4)}"
    if DOCS not in folder.parents and folder != DOCS:
        return match.group(0)
    if re.match(r"^[a-z][a-z0-9+.-]*:", href) or href.startswith("/"):
        return match.group(0)
    target = (folder / href).resolve()
    if DOCS in target.parents or target == DOCS or not target.exists() or ROOT not in target.parents:
        return match.group(0)
    return f"{match.group(1)}{_github(target)}{match.group(3) or ''}{match.group(4)}"
