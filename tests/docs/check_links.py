"""Every internal link of the built documentation site resolves.

    python3 tests/docs/check_links.py [SITE]    # SITE: default target/docs

For each HTML page of the site — the guides and the API references alike —
every `href` and `src` that is not an external URL must name a file of the
site (a folder: its index.html), and every `#anchor` must be an `id` (or an
`<a name>`) of the page it points into. mkdocs --strict checks the guides'
Markdown; this checks what was built: the links into the references, the
references' own links, the links back from them to the site, and the
navigation. Standard library only; exits 1 listing every broken link.

What is not a broken link:
- 404.html's links: root-absolute by design (the server shows that page for
  any missing path, at any depth);
- a rustdoc source page's line range (`#12-40`): the page's script selects
  it; line 12 must exist;
- an anchor into a rustdoc redirect page (a re-export's original path):
  checked in the page it redirects to;
- FOREIGN: links rustdoc copies unresolved from the documentation of other
  crates' traits, shown on our types' blanket implementations (tracing's
  `Instrument`, futures' `TryStreamExt`); they are not ours to fix;
- KNOWN: broken links of our own, each with the reason and the fix, to be
  removed from the list when fixed (a listed link that is no longer broken
  fails too, so the list cannot go stale).
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
FOREIGN = {"dispatcher#setting-the-default-subscriber", "futures_core::stream::Stream"}
# (page, href): why it is broken, and where it is fixed.
KNOWN = {
    ("api/python/dory_wire.html", "#ProtocolError.code"): (
        "pdoc autolinks the docstring's `code` to the subclass, which documents only `kind`"
        " (code is DoryWireError's): python/dory_wire/_errors.py"
    ),
    ("api/python/dory_wire/client.html", "#ProtocolError.code"): "the same docstring, re-exported by dory_wire.client",
    ("api/python/dory_wire.html", "#EventIterator.end"): (
        "`end` is not a documented member of EventIterator (an attribute without annotation):"
        " python/dory_wire/_stream.py"
    ),
    ("api/python/dory_wire.html", "#AsyncEventIterator.end"): "the same, on AsyncEventIterator",
}
LINES = re.compile(r"^(\d+)-\d+$")
REFRESH = re.compile(r'<meta http-equiv="refresh" content="0;URL=([^"]+)"', re.I)


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.redirect: str | None = None
        self.links: list[tuple[str, str]] = []  # (attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "a" and values.get("name"):
            self.ids.add(values["name"] or "")
        for attribute in ("href", "src"):
            value = values.get(attribute)
            # <link rel=preconnect>, <base> etc. are not navigation; keep the rest.
            if value is not None and not (tag == "link" and values.get("rel") in ("preconnect", "dns-prefetch")):
                self.links.append((attribute, value))


def external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme or parts.netloc) or url.startswith(("mailto:", "javascript:", "data:"))


def main(site: Path) -> int:
    pages: dict[Path, Page] = {}
    for path in sorted(site.rglob("*.html")):
        page = Page()
        html = path.read_text(encoding="utf-8", errors="replace")
        page.feed(html)
        refresh = REFRESH.search(html)
        if refresh:
            page.redirect = refresh.group(1)
        pages[path.resolve()] = page
    if not pages:
        print(f"check_links: no HTML under {site}", file=sys.stderr)
        return 1
    broken: dict[Path, list[str]] = defaultdict(list)
    checked = anchors = 0
    seen: set[tuple[str, str]] = set()
    for path, page in pages.items():
        if path.name == "404.html" and path.parent == site.resolve():
            continue
        for attribute, url in page.links:
            if not url or external(url) or url in FOREIGN:
                continue
            parts = urlsplit(url)
            target = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
            if target.is_dir():
                target = target / "index.html"
            checked += 1
            if site.resolve() not in target.parents:
                broken[path].append(f"{attribute}={url!r}: outside the site")
                continue
            if not target.is_file():
                broken[path].append(f"{attribute}={url!r}: no file {target.relative_to(site.resolve())}")
                continue
            fragment = parts.fragment
            if fragment and target.suffix == ".html":
                anchors += 1
                if pages[target].redirect:
                    target = (target.parent / pages[target].redirect).resolve()
                    if target not in pages:
                        broken[path].append(f"{attribute}={url!r}: redirects to a missing page")
                        continue
                lines = LINES.match(fragment)
                if lines:
                    fragment = lines.group(1)
                ids = pages[target].ids
                known = (path.relative_to(site.resolve()).as_posix(), url)
                if fragment not in ids and unquote(fragment) not in ids:
                    if known in KNOWN:
                        seen.add(known)
                        continue
                    broken[path].append(
                        f"{attribute}={url!r}: no id {fragment!r} in {target.relative_to(site.resolve())}"
                    )
    for path, problems in sorted(broken.items()):
        for problem in sorted(set(problems)):
            print(f"{path.relative_to(site.resolve())}: {problem}", file=sys.stderr)
    for page, href in sorted(set(KNOWN) - seen):
        broken[site.resolve() / page].append(
            f"href={href!r} is listed as KNOWN but is no longer broken: remove it from KNOWN"
        )
    for page, href in sorted(seen):
        print(f"check_links: known broken link {page} {href}: {KNOWN[(page, href)]}")
    total = sum(len(set(p)) for p in broken.values())
    print(f"check_links: {len(pages)} pages, {checked} internal links ({anchors} with an anchor), {total} broken")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "target" / "docs"))
