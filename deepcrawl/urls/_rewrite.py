"""URLs rewritten without normalising them: as a browser serialises a link, as a page in
another encoding asks for it, without some query keys."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING
from urllib.parse import unquote, unquote_plus, urlsplit, urlunsplit

from w3lib.url import safe_url_string

from deepcrawl.urls._normal import _C0_OR_SPACE, _NEEDS_ENCODING_RE, ascii_host
from deepcrawl.urls._query import split_query

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["browser_url", "drop_query_keys", "with_query_encoding"]

#: Each byte as the URL Standard's special-query percent-encode set writes it in a query.
_QUERY_BYTES = [
    f"%{byte:02X}" if byte < 0x21 or byte > 0x7E or chr(byte) in "\"#<>'" else chr(byte)
    for byte in range(256)
]


def browser_url(url: str) -> str:
    """An absolute URL as a browser serialises a link to it (``a.href``): the host in ASCII
    (IDNA), what may not appear raw percent-encoded (w3lib's ``safe_url_string``), the rest as
    given — no decoding, no sorting, the fragment kept. The HTML parsers' links take this form,
    so they compare with the browser's (a host, a seen-set); a URL that cannot be read is
    returned as it is, for the normaliser to name its fault.
    """
    if _NEEDS_ENCODING_RE.search(url) is None:
        return url
    url = url.strip(_C0_OR_SPACE)
    try:
        parts = urlsplit(url)
        userinfo, at, hostport = parts.netloc.rpartition("@")
        name, port = hostport, ""
        if ":" in hostport and not hostport.startswith("["):
            name, colon, number = hostport.rpartition(":")
            port = colon + number
        netloc = f"{userinfo}{at}{ascii_host(unquote(name))}{port}"
        rebuilt = urlunsplit(parts._replace(netloc=netloc))
        # an empty fragment ends it, so that w3lib's stripping keeps a space the path ends with
        return safe_url_string(rebuilt if parts.fragment else rebuilt + "#")
    except ValueError:
        return url


def with_query_encoding(url: str, encoding: str) -> str:
    """``url`` as a page in ``encoding`` asks for it: each non-ASCII character of its query
    percent-encoded in that encoding, one it lacks as an escaped ``&#N;`` (the URL Standard: a
    link's path is always UTF-8, its query in its document's encoding). Browsers resolve links
    so; the plain-HTTP fetcher's links must match theirs.
    """
    before, hash_mark, fragment = url.partition("#")
    head, mark, query = before.partition("?")
    if not mark or query.isascii() or codecs.lookup(encoding).name == "utf-8":
        return url
    out = []
    for char in query:
        if char.isascii():
            out.append(char)
            continue
        try:
            out.append("".join(_QUERY_BYTES[byte] for byte in char.encode(encoding)))
        except UnicodeEncodeError:
            out.append(f"%26%23{ord(char)}%3B")
    return f"{head}?{''.join(out)}{hash_mark}{fragment}"


def drop_query_keys(url: str, drop: Callable[[str], object]) -> str:
    """A normal form without the query items whose key, decoded, ``drop`` accepts.

    The kept items are left as they are, so the result is a normal form too (near-duplicates —
    tracking, session and sorting parameters — collapse onto one).
    """
    head, mark, query = url.partition("?")
    if not mark:
        return url
    items, separator = split_query(query)
    kept = [item for item in items if not drop(unquote_plus(item.partition("=")[0]))]
    return f"{head}?{separator.join(kept)}" if kept else head
