"""Adds a link back to the site to every page of the API references.

    python3 backlink.py DIR    # DIR: the references, as they will sit under the site's api/

Each HTML page under DIR gets, right after <body ...>, a small fixed link to
the site's home page (relative, so the site works from any folder, a file://
URL included). Idempotent: a page that has the link is left alone.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MARK = 'class="dory-site-link"'
STYLE = (
    "position:fixed;top:6px;right:12px;z-index:2147483647;padding:2px 8px;"
    "font:13px/1.6 system-ui,sans-serif;background:#3f51b5;color:#fff;"
    "border-radius:4px;text-decoration:none;opacity:.92"
)
BODY = re.compile(r"<body\b[^>]*>", re.I)


def main(folder: Path) -> int:
    pages = 0
    for page in sorted(folder.rglob("*.html")):
        html = page.read_text(encoding="utf-8")
        if MARK in html or 'http-equiv="refresh"' in html:
            continue  # done, or a redirect (rustdoc's re-exports)
        body = BODY.search(html)
        if body is None:
            continue  # a fragment, not a page
        depth = len(page.relative_to(folder).parts)  # api/ itself is one level
        link = f'<a {MARK} href="{"../" * depth}index.html" style="{STYLE}">dory-wire docs</a>'
        page.write_text(html[: body.end()] + link + html[body.end() :], encoding="utf-8")
        pages += 1
    print(f"backlink: {pages} pages of {folder} link back to the site")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
