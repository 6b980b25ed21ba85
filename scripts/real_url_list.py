"""Save a real application's URL list with page kinds from its own store (run by hand).

How ``tests/data/real/<app>/urls.tsv`` was made: a breadth-first walk of the running application
(plain HTTP, no login) collects the distinct links it finds in discovery order, and each link is
given its page kind from the application's own database or page store — never from its looks.
``detail`` is the kind a user wants (an issue, a wiki record page, a table row)::

    python scripts/real_url_list.py roundup http://127.0.0.1:23001/tracker/ /tmp/rt/tracker/db/db
    python scripts/real_url_list.py dokuwiki "http://127.0.0.1:23002/doku.php?id=start" \\
        /tmp/dw/data/pages
    python scripts/real_url_list.py datasette http://127.0.0.1:23003/ /tmp/ds/survey.db
    python scripts/real_url_list.py mediawiki http://127.0.0.1:23004/index.php/Main_Page \\
        /tmp/mw/data/wiki.sqlite

Each writes ``kind<TAB>url`` lines to stdout. How each application was installed and loaded is in
``tests/data/real/README.md``.
"""

from __future__ import annotations

import argparse
import os
import re
import sqlite3
from collections import deque
from typing import TYPE_CHECKING
from urllib.parse import parse_qsl, unquote, urldefrag, urljoin, urlsplit

import httpx
import lxml.html

if TYPE_CHECKING:
    from collections.abc import Iterator

#: Links the walk lists but does not follow: they log in, register or change state.
_NO_FOLLOW = (
    "logout", "@action", "retire", "do=login", "do=register", "do=resendpwd", "sectok",
    "Special:UserLogin", "Special:CreateAccount",
)  # fmt: skip


def walk(start: str, max_urls: int, max_pages: int = 2000) -> list[str]:
    """The distinct links under ``start``'s origin, in the order a breadth-first walk finds them."""
    origin = "{0.scheme}://{0.netloc}/".format(urlsplit(start))
    queue, seen, found = deque([start]), {start}, [start]
    pages = 0
    with httpx.Client(timeout=30, follow_redirects=True) as client:
        while queue and pages < max_pages and len(found) < max_urls:
            url = queue.popleft()
            try:
                response = client.get(url)
            except httpx.HTTPError:
                continue
            pages += 1
            if "html" not in response.headers.get("content-type", "") or not response.text.strip():
                continue
            for href in lxml.html.fromstring(response.text).xpath("//a/@href"):
                absolute = urldefrag(urljoin(str(response.url), href.strip()))[0]
                if not absolute.startswith(origin) or absolute in seen:
                    continue
                seen.add(absolute)
                found.append(absolute)
                if len(found) >= max_urls:
                    break
                if not any(s in absolute for s in _NO_FOLLOW):
                    queue.append(absolute)
    return found


def roundup(urls: list[str], store: str) -> Iterator[tuple[str, str]]:
    """Kinds of a Roundup tracker's URLs: ``<class><id>`` of an item in its SQLite database."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    classes = ("issue", "msg", "user")
    ids = {c: {str(r[0]) for r in db.execute(f"select id from _{c}")} for c in classes}
    for url in urls:
        parts = urlsplit(url)
        m = re.fullmatch(r"/[a-z]+/([a-z]+)([0-9]+)", parts.path)
        kind = "other"
        if m and m.group(2) in ids.get(m.group(1), ()):
            kind = m.group(1) if not parts.query else m.group(1) + "-view"
        yield ("detail" if kind == "issue" else kind), url


def dokuwiki(urls: list[str], store: str) -> Iterator[tuple[str, str]]:
    """Kinds of a DokuWiki's URLs: the page files under ``data/pages``; records are the wanted."""
    pages = set()
    for folder, _, files in os.walk(store):
        for name in files:
            if name.endswith(".txt"):
                relative = os.path.relpath(os.path.join(folder, name[:-4]), store)
                pages.add(relative.replace(os.sep, ":"))
    for url in urls:
        parts = urlsplit(url)
        query = parse_qsl(parts.query, keep_blank_values=True)
        page = dict(query).get("id")
        kind = "other"
        if parts.path == "/doku.php" and page in pages:
            if {k for k, _ in query} == {"id"}:
                top = page.split(":")[0] if ":" in page else "root"
                wanted = top == "records" and not page.endswith(":start")
                kind = "detail" if wanted else f"page-{top}"
            else:
                views = sorted(f"{k}={v}" if k == "do" else k for k, v in query if k != "id")
                kind = "page-" + ",".join(views)
        yield kind, url


def datasette(urls: list[str], store: str) -> Iterator[tuple[str, str]]:
    """Kinds of a Datasette's URLs: rows of its SQLite tables; a ``sites`` row is wanted."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    ids = {t: {str(r[0]) for r in db.execute(f"select id from {t}")} for t in ("sites", "counties")}
    for url in urls:
        parts = urlsplit(url)
        m = re.fullmatch(r"/[a-z]+/([a-z]+)/([0-9]+)(\.json|\.csv)?", parts.path)
        kind = "other"
        if m and m.group(2) in ids.get(m.group(1), ()):
            kind = m.group(1) + (m.group(3) or "") + ("?" if parts.query else "")
        yield ("detail" if kind == "sites" else kind), url


def mediawiki(urls: list[str], store: str) -> Iterator[tuple[str, str]]:
    """Kinds of a MediaWiki's URLs: its ``page`` table; pages of the category ``Survey_sites``
    are the wanted ones, read at their article path (``/index.php/Title``)."""
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    wanted = {
        row[0].decode() if isinstance(row[0], bytes) else row[0]
        for row in db.execute(
            "select page_title from page join categorylinks on cl_from = page_id"
            " where page_namespace = 0 and cl_to = 'Survey_sites'"
        )
    }
    for url in urls:
        parts = urlsplit(url)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        if parts.path.startswith("/index.php/") and not parts.query:
            title = unquote(parts.path[len("/index.php/") :])
            kind = "detail" if title in wanted else "page"
        elif parts.path == "/index.php" and "title" in query:
            views = sorted(f"{k}={v}" if k in ("action", "diff") else k for k, v in query.items())
            kind = "view-" + ",".join(k for k in views if k != "title")
        else:
            kind = "other"
        yield kind, url


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("app", choices=("roundup", "dokuwiki", "datasette", "mediawiki"))
    parser.add_argument("start", help="the walk's start URL")
    parser.add_argument("store", help="the application's database file or page folder")
    parser.add_argument("--urls", type=int, default=700, help="links to collect")
    args = parser.parse_args()
    label = {
        "roundup": roundup,
        "dokuwiki": dokuwiki,
        "datasette": datasette,
        "mediawiki": mediawiki,
    }[args.app]
    for kind, url in label(walk(args.start, args.urls), args.store):
        print(f"{kind}\t{url}")


if __name__ == "__main__":
    main()
