"""mkdocs hooks of the dory-wire site (scripts/site/mkdocs.yml).

- The API references, built by scripts/docs.sh into target/docs-api
  (DORY_DOCS_API overrides), become files of the site under api/, so links
  from the guides into them are checked by `mkdocs build --strict` like any
  other, and the nav's "API reference" section gets one link per package.
  Their files are copied as they are: a Markdown file among them (rustdoc's
  font licence, static.files/SourceSerif4-LICENSE-*.md) is not made a page
  of the site (it would be rendered, searched and reported as missing from
  the nav), it is copied after the build like the licences in .txt.
- The site's search covers the API references too: one entry per item
  (a rustdoc or typedoc page, a top-level name of a pdoc module), its title
  the name and where it lives, its text the item's first paragraph, added to
  the search plugin's index before it is written. They rank below the
  guides (`API_BOOST`), so a guide's heading still comes first; the
  references' own static pages (sources, settings, help, redirects, assets)
  are not in it.
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
import shutil
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
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

# The search ranks an API entry at this fraction of a guide's entry that
# matches the same way: a guide's title or heading first, then the names of
# the references (an API title still outranks a guide's body text).
API_BOOST = 0.1
# The pages of the references that are not about one item of the API.
API_SKIP = re.compile(
    r"^(rust/(src|static\.files|trait\.impl|type\.impl)/|rust/(index|help|settings)\.html$|.*/all\.html$"
    r"|js/assets/|js/(index|hierarchy)\.html$|python/index\.html$)"
)
REDIRECT = re.compile(r'<meta http-equiv="refresh"', re.I)
# The class of the element holding an item's documentation: rustdoc, typedoc, pdoc.
API_DOCS = frozenset({"docblock", "tsd-comment", "docstring"})
# typedoc's folders, by the kind of item each page is.
JS_KINDS = {
    "classes": "class",
    "interfaces": "interface",
    "functions": "function",
    "types": "type",
    "variables": "constant",
}
# Files of the references copied after the build instead of being pages.
_copied: list[tuple[Path, str]] = []


def on_files(files, config):
    if not API.is_dir():
        raise PluginError(f"{API} is missing: scripts/docs.sh builds the API references there first")
    _copied.clear()
    for path in sorted(API.rglob("*")):
        if not path.is_file():
            continue
        uri = "api/" + path.relative_to(API).as_posix()
        if path.suffix == ".md":
            _copied.append((path, uri))
        else:
            files.append(File.generated(config, uri, abs_src_path=str(path)))
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


@event_priority(50)  # before the search plugin writes its index
def on_post_build(config):
    for path, uri in _copied:
        target = Path(config.site_dir) / uri
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    search = [p for p in config.plugins.values() if hasattr(p, "search_index")]
    if len(search) != 1:
        raise PluginError(f"expected one search plugin with a search_index, found {len(search)}")
    search[0].search_index.entries.extend(api_entries(API))


def api_entries(api: Path) -> list[dict]:
    """The search entries of the API references under `api` (site paths api/...)."""
    entries = []
    for path in sorted(api.rglob("*.html")):
        rel = path.relative_to(api).as_posix()
        if API_SKIP.match(rel):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if REDIRECT.search(text):
            continue
        page = _ApiPage(items=rel.startswith("python/"))
        page.feed(text)
        page.close()
        for anchor, title, body in _items(rel, page):
            location = f"api/{rel}" + (f"#{anchor}" if anchor else "")
            entries.append({"location": location, "title": title, "text": body, "boost": API_BOOST})
    return entries


def _items(rel: str, page: _ApiPage) -> list[tuple[str, str, str]]:
    """(anchor, title, text) of the items of one reference page, the page's own first."""
    stem = rel.rsplit("/", 1)[-1].removesuffix(".html")
    if rel.startswith("rust/"):
        # <title>: "Computer in dory_wire_client - Rust", "dory_wire::preview - Rust"
        item, _, parent = page.title.removesuffix(" - Rust").partition(" in ")
        # index.html: a crate's (rust/<crate>/index.html) or a module's page; else
        # <kind>.<name>.html: struct, enum, fn, trait, constant, type, macro
        index = "crate" if rel.count("/") == 2 else "module"
        kind = index if stem == "index" else stem.split(".", 1)[0]
        where = f"Rust {kind}, {parent}" if parent else f"Rust {kind}"
        # rustdoc's description is the summary line; a crate's is its name only.
        text = page.first_paragraph if kind == "crate" else page.description or page.first_paragraph
        return [("", f"{item} ({where})", text)]
    if rel.startswith("js/"):
        # <title>: "SpillDirectory | dory-wire (JavaScript)"; file: classes/client.SpillDirectory.html
        folder = rel.split("/")[1]
        module = "dory-wire/client" if stem.split(".", 1)[0] == "client" else "dory-wire"
        if folder == "modules":
            return [("", f"{module} (JavaScript module)", page.first_paragraph or f"The API reference of {module}.")]
        kind = JS_KINDS.get(folder, folder)
        return [("", f"{page.title.split(' | ')[0]} (JavaScript {kind}, {module})", page.first_paragraph)]
    if rel.startswith("python/"):
        module = rel.removeprefix("python/").removesuffix(".html").replace("/", ".")
        items = [("", f"{module} (Python module)", page.first_paragraph)]
        items += [(anchor, f"{anchor} (Python {kind}, {module})", text) for anchor, kind, text in page.sections]
        return items
    return []


class _ApiPage(HTMLParser):
    """What the search takes from a page of rustdoc, typedoc or pdoc: its
    <title>, its meta description, the first paragraph of its first
    documentation block, and pdoc's top-level items (each `<section id>`:
    the kind its `attr` div names and the first paragraph of its own
    docstring, not of a member's)."""

    def __init__(self, *, items: bool) -> None:
        super().__init__(convert_charrefs=True)
        self.items = items  # pdoc: a <section id> is an item (rustdoc's are parts of a page)
        self.title = ""
        self.description = ""
        self.first_paragraph = ""
        self.sections: list[tuple[str, str, str]] = []  # (id, kind, text)
        self._in_title = False
        self._divs = 0  # open <div>s
        self._docs_at = 0  # the depth of the documentation <div> being read; 0: none
        self._paragraph: list[str] | None = None
        self._section: list[str] | None = None  # [id, kind, text] of pdoc's current item
        self._members = False  # past the start of the current item's members

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "title":
            self._in_title = True
        elif tag == "meta" and a.get("name") == "description":
            self.description = " ".join((a.get("content") or "").split())
        elif tag == "section" and a.get("id") and self.items:
            self._end_section()
            self._section, self._members = [a["id"], "", ""], False
        elif tag == "div":
            self._divs += 1
            if self._section is not None and "classattr" in classes:
                self._members = True
            elif self._section is not None and not self._members and "attr" in classes and not self._section[1]:
                self._section[1] = next((c for c in classes if c != "attr"), "")
            elif not self._docs_at and API_DOCS & set(classes) and self._wants_text():
                self._docs_at = self._divs
        elif tag == "p" and self._docs_at and self._paragraph is None:
            self._paragraph = []

    def handle_endtag(self, tag):
        if tag == "title":
            self._in_title = False
        elif tag == "section":
            self._end_section()
        elif tag == "div":
            if self._divs == self._docs_at:
                self._docs_at = 0
            self._divs -= 1
        elif tag == "p" and self._paragraph is not None:
            text = " ".join("".join(self._paragraph).split())
            if self._section is None:
                self.first_paragraph = text
            else:
                self._section[2] = text
            self._paragraph, self._docs_at = None, 0

    def handle_data(self, data):
        if self._in_title:
            self.title += data
        if self._paragraph is not None:
            self._paragraph.append(data)

    def close(self):
        super().close()
        self._end_section()
        self.title = " ".join(self.title.split())

    def _wants_text(self) -> bool:
        if self._section is None:
            return not self.first_paragraph
        return not self._members and not self._section[2]

    def _end_section(self):
        if self._section is not None:
            anchor, kind, text = self._section
            self.sections.append((anchor, kind or "name", text))
            self._section = None


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
