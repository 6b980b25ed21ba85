"""URL normalisation and tokenising (Hernández et al., "Tokeniser"; RFC 3986, URL Standard).

The prototyper learns the shapes of a site's URLs, so two spellings of one URL must become one
string before anything is counted; the crawl keys its frontier and its stored pages by that
string, so it is a record's identity too. :func:`normalise_url` gives that *normal form*, built on
field libraries where the web's rules are intricate — w3lib's ``safe_url_string`` (the URL
Standard's parsing and percent-encoding, as browsers apply it) and ``idna`` (UTS 46, as Chromium
and httpx encode host names) — with the project's own rules on top:

* relative references (``/ref=logo``, ``./ref=logo``) are resolved against a base (RFC 3986 §5.2);
* leading and trailing spaces and controls are stripped, tabs and newlines inside removed, and a
  backslash read as ``/`` before the query, as browsers do; other control characters are refused;
* the scheme is lower-cased; the host is percent-decoded, lower-cased and, when it is not ASCII,
  IDNA-encoded (``bücher.de`` → ``xn--bcher-kva.de``; UTS 46 non-transitional, so ``ß`` stays
  ``ß``: ``straße.de`` → ``xn--strae-oqa.de``); an IPv6 address is compressed (RFC 5952); the
  scheme's default port is dropped and an empty path becomes ``/`` (§6.2.2.1, §6.2.3);
* characters that may not appear raw (non-ASCII, space, ``"``, ``<``, ``[``, ``|`` …, and ``'`` in
  the query) become UTF-8 escapes; escapes already there are kept, never encoded twice, and a
  ``%`` that starts no escape becomes ``%25`` (§2.1, §2.4);
* escapes are normalised (§6.2.2.2): upper-case hex, and those of unreserved characters decoded;
  in the query also those of the reserved characters that are no delimiter of a form-encoded
  query (``! $ ( ) * , / : ; ? @``) and ``%20`` becomes ``+``, so ``title=Talk%3AX`` and
  ``title=Talk:X`` — one request to every server — are one URL;
* dot segments are removed (§5.2.4, ``%2E`` included) and the fragment dropped;
* query items are sorted — order never matters, repeated keys are kept, empty items dropped, and
  a bare ``key`` stays apart from ``key=``;
* session ids are dropped — path parameters (``;jsessionid=…``) and query items (``PHPSESSID=…``,
  ``sid=…``) named in :data:`SESSION_PARAMS` whose value looks like an id (long enough,
  not a number): a server that opens a session per response links one page under a new id
  every time, and each would be another record.

Whatever cannot be read raises :class:`~deepcrawl.errors.InvalidURLError`, which keeps the URL:
a control character, an overlong URL, an unsupported scheme, a missing or invalid host (one IDNA
refuses), a bad port.

:func:`tokenise` splits a normal form into scheme, host, path segments and the query as sorted
``(key, value)`` pairs; :func:`split_segment` splits a segment into tokens at ``-``, ``_``, ``.``
and digit/letter boundaries. A URL made only of characters that may appear raw (nearly every
link) never reaches the field libraries: for it their answer is the URL itself (a property test
checks that), so the common case stays plain string work and precompiled regular expressions —
it runs on millions of URLs.
"""

from __future__ import annotations

import codecs
import ipaddress
import re
from dataclasses import dataclass
from string import ascii_letters, digits, hexdigits
from typing import TYPE_CHECKING
from urllib.parse import (
    quote,
    unquote,
    unquote_plus,
    unquote_to_bytes,
    urljoin,
    urlsplit,
    urlunsplit,
)

import idna
from w3lib.url import safe_url_string

from deepcrawl.errors import InvalidURLError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

__all__ = [
    "ALLOWED_SCHEMES",
    "MAX_START_URL_LENGTH",
    "MAX_URL_LENGTH",
    "SESSION_PARAMS",
    "SESSION_VALUE_MIN_LENGTH",
    "SessionParams",
    "URLNormaliser",
    "URLTokens",
    "ascii_host",
    "browser_url",
    "drop_query_keys",
    "drop_session_params",
    "normalise_or_none",
    "normalise_url",
    "normalise_urls",
    "parse_normalised",
    "split_segment",
    "tokenise",
    "with_query_encoding",
]

#: Longer URLs are refused (:class:`~deepcrawl.errors.InvalidURLError`): the store keeps URLs of
#: up to 4,096 characters, and a longer link is a trap more often than a record.
MAX_URL_LENGTH = 4096
#: The longest start or ``--like`` URL a crawl accepts: the store keeps start URLs of up to
#: 2,048 characters (the sitemaps protocol's limit too).
MAX_START_URL_LENGTH = 2048
#: The schemes a URL may have; ``mailto:``, ``javascript:`` … are refused.
ALLOWED_SCHEMES = ("http", "https")
#: Names (any case) of session id parameters, path (``;jsessionid=``) or query, dropped from
#: the normal form when their value looks like an id (``?sid=17`` stays). Those a site carries
#: under other names are learnt by the crawl (:mod:`deepcrawl.crawler.session_params`).
SESSION_PARAMS = (
    "jsessionid", "phpsessid", "aspsessionid", "sid", "sessid", "sessionid", "session_id",
)  # fmt: skip
#: The shortest value of a :data:`SESSION_PARAMS` parameter taken for a session id (not a
#: number): ids are long, page numbers and short codes are not.
SESSION_VALUE_MIN_LENGTH = 8

_UNRESERVED = frozenset(ascii_letters + digits + "-._~")
#: Reserved characters that delimit nothing in a form-encoded query (``&``, ``=``, ``+``, ``#``
#: do; ``'`` is encoded by browsers in a query): their escapes are decoded there.
_QUERY_DECODED = _UNRESERVED | frozenset("!$()*,/:;?@")


def _escape_table(decoded: frozenset[str], space: str | None = None) -> dict[str, str]:
    """Every two-hex-digit escape, in any case, mapped to its normal form."""
    table = {}
    for a in hexdigits:
        for b in hexdigits:
            char = chr(int(a + b, 16))
            table[a + b] = char if char in decoded else f"%{a}{b}".upper()
    if space is not None:
        table["20"] = space
    return table


_PATH_ESCAPES = _escape_table(_UNRESERVED)
_QUERY_ESCAPES = _escape_table(_QUERY_DECODED, space="+")
_ESCAPE_RE = re.compile(r"%([0-9A-Fa-f]{2})")
_LONE_PERCENT_RE = re.compile(r"%(?![0-9A-Fa-f]{2})")
#: The URL Standard's "C0 control or space", stripped from both ends of a URL.
_C0_OR_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_OR_NEWLINE = str.maketrans("", "", "\t\n\r")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: Anything but the characters that may appear raw in every part of a URL sends the URL through
#: the field libraries (``'`` is raw in a path but encoded in a query; ``[`` ``]`` only in a host).
_NEEDS_ENCODING_RE = re.compile(r"[^A-Za-z0-9\-._~:/?#@!$&()*+,;=%]")
_SCHEME_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_ABSOLUTE_RE = re.compile(
    r"([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?\Z", re.S
)
_PORT_RE = re.compile(r"[0-9]*")
#: Each byte as the URL Standard's special-query percent-encode set writes it in a query.
_QUERY_BYTES = [
    f"%{byte:02X}" if byte < 0x21 or byte > 0x7E or chr(byte) in "\"#<>'" else chr(byte)
    for byte in range(256)
]
#: What a user name and password keep raw (RFC 3986 §3.2.1; ``%`` starts an escape kept as is).
_USERINFO_RAW = "!$&'()*+,;=:%"
#: The URL Standard's forbidden domain code points that can reach a host (after decoding).
_BAD_HOST_RE = re.compile(r"[\x00-\x20\x7f#%/:<>?@\[\\\]^|]")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
_TOKEN_RE = re.compile(r"[0-9]+|[\-_.]|(?:%[0-9A-Fa-f]{2}|[^0-9\-_.%])+|%")


def _normalise_escapes(part: str, table: dict[str, str]) -> str:
    """``%`` that starts no escape → ``%25``; every escape → its normal form in ``table``."""
    if _LONE_PERCENT_RE.search(part):
        part = _LONE_PERCENT_RE.sub("%25", part)
    return _ESCAPE_RE.sub(lambda m: table[m.group(1)], part)


def _backslashes_as_slashes(url: str) -> str:
    """Backslashes before the query read as ``/`` (the URL Standard, for special schemes)."""
    cut = len(url)
    for mark in "?#":
        at = url.find(mark)
        if 0 <= at < cut:
            cut = at
    return url[:cut].replace("\\", "/") + url[cut:]


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 §5.2.4 for an absolute path (one that starts with ``/``)."""
    segments = path.split("/")
    out: list[str] = []
    for segment in segments[1:]:
        if segment == "..":
            if out:
                out.pop()
        elif segment != ".":
            out.append(segment)
    result = "/" + "/".join(out)
    if segments[-1] in (".", "..") and not result.endswith("/"):
        result += "/"
    return result


def ascii_host(name: str) -> str:
    """A host name in ASCII, lower-cased: punycode for an internationalised one.

    UTS 46 as browsers and httpx apply it (non-transitional: ``ß`` stays ``ß``, not ``ss``).

    Raises:
        ValueError: the name is no valid internationalised domain name.
    """
    name = name.lower()
    if name.isascii():
        return name
    try:
        return idna.encode(name, uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError) as exc:
        raise ValueError(f"{name!r} is not a valid domain name ({exc})") from exc


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
    kept = [item for item in query.split("&") if not drop(unquote_plus(item.partition("=")[0]))]
    return f"{head}?{'&'.join(kept)}" if kept else head


@dataclass(frozen=True, slots=True)
class URLTokens:
    """A normalised URL split into its parts.

    Attributes:
        scheme: lower-case scheme (``"https"``).
        host: lower-case authority: host, and the port when it is not the default one.
        segments: path segments; ``/a/b/`` gives ``("a", "b", "")``, ``/`` gives ``("",)``.
        query: ``(key, value)`` pairs in sorted order; ``value`` is None for a bare ``key``.
    """

    scheme: str
    host: str
    segments: tuple[str, ...]
    query: tuple[tuple[str, str | None], ...]

    @property
    def origin(self) -> str:
        """``scheme://host``."""
        return f"{self.scheme}://{self.host}"

    @property
    def path(self) -> str:
        """The path, starting with ``/``."""
        return "/" + "/".join(self.segments)

    @property
    def query_keys(self) -> frozenset[str]:
        """The set of query keys."""
        return frozenset(key for key, _ in self.query)

    def segment_tokens(self) -> tuple[tuple[str, ...], ...]:
        """The tokens of every path segment (see :func:`split_segment`)."""
        return tuple(split_segment(segment) for segment in self.segments)

    def to_url(self) -> str:
        """Reassemble the normal form this was parsed from."""
        url = self.origin + self.path
        if self.query:
            url += "?" + "&".join(k if v is None else f"{k}={v}" for k, v in self.query)
        return url


class SessionParams:
    """Which parameters of a URL carry a session id: a name of ``names`` (any case) and a value
    of ``min_length`` characters or more that is not a number (``sid=17`` is an id).

    ``anyway`` names parameters that are no part of a page's identity whatever their value
    (those learnt to echo the submitted query, or that canonical links drop).

    Args:
        names: the parameter names (``jsessionid``, ``PHPSESSID`` …).
        min_length: the shortest value taken for a session id.
        anyway: the names dropped whatever their value.
    """

    def __init__(
        self,
        names: Iterable[str],
        *,
        min_length: int = SESSION_VALUE_MIN_LENGTH,
        anyway: Iterable[str] = (),
    ) -> None:
        self.names = frozenset(name.lower() for name in names)
        self.min_length = min_length
        self.anyway = frozenset(name.lower() for name in anyway)

    def __bool__(self) -> bool:
        return bool(self.names or self.anyway)

    def carries(self, name: str, value: str) -> bool:
        """Whether the parameter ``name=value`` (decoded or not) carries a session id (or is
        dropped whatever its value)."""
        if "%" in name or "+" in name:
            name = unquote_plus(name)
        name = name.lower()
        if name in self.anyway:
            return True
        return name in self.names and len(value) >= self.min_length and not value.isdigit()

    def drop_from_items(self, items: list[str]) -> list[str]:
        """Query items (``key\0value``, as :meth:`URLNormaliser.parts` splits them) without
        those that carry a session id."""
        return [
            item
            for item in items
            if "\0" not in item or not self.carries(*item.partition("\0")[::2])
        ]

    def drop_from_path(self, path: str) -> str:
        """A path without the path parameters (``;name=value`` in a segment) that carry a
        session id."""
        segments = path.split("/")
        for n, segment in enumerate(segments):
            if ";" not in segment:
                continue
            head, *params = segment.split(";")
            kept = [p for p in params if not self.carries(*p.partition("=")[::2])]
            segments[n] = ";".join([head, *kept])
        return "/".join(segments)


def drop_session_params(url: str, sessions: SessionParams) -> str:
    """A normal form without the path parameters and query items that carry a session id by
    ``sessions`` (the kept items as they were: the result is a normal form too)."""
    if not sessions:
        return url
    head, mark, query = url.partition("?")
    if ";" in head:
        start = head.find("/", head.find("://") + 3)
        if start > 0:
            head = head[:start] + sessions.drop_from_path(head[start:])
    if not mark:
        return head
    items = sessions.drop_from_items(query.replace("=", "\0").split("&"))
    return f"{head}?{'&'.join(items).replace(chr(0), '=')}" if items else head


class URLNormaliser:
    """Turns URLs into their normal form; reusable and cheap to call millions of times.

    Args:
        session_params: names (any case) of session id parameters (:data:`SESSION_PARAMS`).
        session_value_min_length: the shortest value of such a parameter taken for an id.
        max_length: longer URLs are refused.
        schemes: the schemes accepted.
    """

    def __init__(
        self,
        *,
        session_params: Iterable[str] = SESSION_PARAMS,
        session_value_min_length: int = SESSION_VALUE_MIN_LENGTH,
        max_length: int = MAX_URL_LENGTH,
        schemes: Iterable[str] = ALLOWED_SCHEMES,
    ) -> None:
        self.max_length = max_length
        self.schemes = frozenset(s.lower() for s in schemes)
        self.sessions = SessionParams(session_params, min_length=session_value_min_length)
        self._origins: dict[tuple[str, str], str] = {}

    def __call__(self, url: str, base: str | None = None) -> str:
        """Return the normal form of ``url``, resolved against ``base`` when it is relative.

        Raises:
            InvalidURLError: the URL (or the base) cannot be parsed or normalised; the error
                keeps the URL as given.
        """
        origin, path, query = self.parts(url, base)
        return f"{origin}{path}?{query}" if query else origin + path

    def parts(self, url: str, base: str | None = None) -> tuple[str, str, str]:
        """The normal form in three parts: ``scheme://host``, the path, the sorted query.

        Raises:
            InvalidURLError: as :meth:`__call__`.
        """
        original = url
        url = url.strip(_C0_OR_SPACE)
        if len(url) > self.max_length:
            raise InvalidURLError(original, f"longer than {self.max_length} characters")
        raw = _NEEDS_ENCODING_RE.search(url) is None
        if not raw:
            url = url.translate(_TAB_OR_NEWLINE)
            if _CONTROL_RE.search(url):
                raise InvalidURLError(original, "contains a control character")
            if "\\" in url:
                url = _backslashes_as_slashes(url)
        match = _ABSOLUTE_RE.match(url)
        if match is None or (base is not None and not _SCHEME_RE.match(url)):
            match = self._resolve(original, url, base)
        scheme, authority, path, query = match.groups()
        origin = self._origins.get((scheme, authority))
        if origin is None:
            origin = self._origin(original, scheme, authority)
        if not raw:
            path, query = _encode(origin[: origin.index(":")], path, query)
        if "%" in path:
            path = _normalise_escapes(path, _PATH_ESCAPES)
        if not path:
            path = "/"
        elif "/." in path:
            path = _remove_dot_segments(path)
        if ";" in path:
            path = self.sessions.drop_from_path(path)
        if not query:
            return origin, path, ""
        if "%" in query:  # escapes never span an "&": the whole query is normalised at once
            query = _normalise_escapes(query, _QUERY_ESCAPES)
        # Sort items by key first: with "=" as "\0" (never in a valid URL) a plain string sort
        # orders "page=1" before "page2=1", and runs in C.
        items = query.replace("=", "\0").split("&")
        if "" in items:
            items = [item for item in items if item]
        if self.sessions.names:
            items = self.sessions.drop_from_items(items)
            if not items:
                return origin, path, ""
        if len(items) > 1:
            items.sort()
        return origin, path, "&".join(items).replace("\0", "=")

    def _resolve(self, original: str, url: str, base: str | None) -> re.Match[str]:
        scheme_match = _SCHEME_RE.match(url)
        if scheme_match and scheme_match.group(1).lower() not in self.schemes:
            raise InvalidURLError(original, f"scheme {scheme_match.group(1)!r} not supported")
        if base is None:
            raise InvalidURLError(original, "relative URL and no base URL to resolve it")
        try:
            url = urljoin(self(base), url)
        except ValueError as exc:
            raise InvalidURLError(original, str(exc)) from exc
        match = _ABSOLUTE_RE.match(url)
        if match is None:
            raise InvalidURLError(original, "cannot be resolved to an absolute URL")
        return match

    def _origin(self, original: str, scheme: str, authority: str) -> str:
        lower = scheme.lower()
        if lower not in self.schemes:
            raise InvalidURLError(original, f"scheme {scheme!r} not supported")
        origin = f"{lower}://{self._authority(original, lower, authority)}"
        if len(self._origins) < 10_000:  # a crawl sees few hosts; keep the cache bounded
            self._origins[(scheme, authority)] = origin
        return origin

    def _authority(self, original: str, scheme: str, authority: str) -> str:
        userinfo, at, hostport = authority.rpartition("@")
        if hostport.startswith("["):  # IPv6 literal
            end = hostport.find("]")
            if end < 0:
                raise InvalidURLError(original, "unclosed '[' in the host")
            host, port = _ipv6(original, hostport[1:end]), hostport[end + 1 :]
            if port and not port.startswith(":"):
                raise InvalidURLError(original, "garbage after the IPv6 host")
            port = port[1:]
        else:
            host, _, port = hostport.partition(":")
            host = _host(original, host)
        if not _PORT_RE.fullmatch(port) or (port and int(port) > 65535):
            raise InvalidURLError(original, f"bad port {port!r}")
        if port and int(port) != _DEFAULT_PORTS.get(scheme):
            host = f"{host}:{int(port)}"
        if at:
            userinfo = quote(userinfo, safe=_USERINFO_RAW)
            host = f"{_normalise_escapes(userinfo, _PATH_ESCAPES)}@{host}"
        return host


def _encode(scheme: str, path: str, query: str | None) -> tuple[str, str]:
    """``path`` and ``query`` with what may not appear raw percent-encoded, by w3lib (the URL
    Standard's sets, widened to what RFC 3986 allows): in a URL of their own scheme, as that
    decides whether ``'`` is encoded in the query; the host plays no part. An empty fragment
    ends the URL, so that w3lib's stripping of its ends cannot reach a space the path or the
    query ends with (inside the URL the caller was given, it is no end)."""
    prefix = f"{scheme}://h"
    try:
        safe = safe_url_string(f"{prefix}{path}?{query or ''}#")
    except ValueError as exc:  # w3lib's own parse; unreachable for a host of "h"
        raise InvalidURLError(prefix + path, str(exc)) from exc
    path, _, query = safe[len(prefix) :].partition("?")
    return path, query


def _host(original: str, host: str) -> str:
    """A registered name (or IPv4 address) in its normal form: decoded, lower-case, ASCII."""
    if "%" in host:
        try:
            host = unquote_to_bytes(host).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InvalidURLError(original, "the host's escapes are no UTF-8") from exc
    if not host:
        raise InvalidURLError(original, "no host")
    try:
        host = ascii_host(host)
    except ValueError as exc:
        raise InvalidURLError(original, f"bad host: {exc}") from exc
    if _BAD_HOST_RE.search(host):
        raise InvalidURLError(original, f"bad host {host!r}")
    return host


def _ipv6(original: str, address: str) -> str:
    try:
        return f"[{ipaddress.IPv6Address(address).compressed}]"
    except ValueError as exc:
        raise InvalidURLError(original, f"bad IPv6 address ({exc})") from exc


_DEFAULT = URLNormaliser()


def normalise_url(url: str, base: str | None = None) -> str:
    """Return the normal form of ``url`` (see the module docstring).

    Args:
        url: an absolute URL, or a relative reference when ``base`` is given.
        base: the URL of the page the reference was found on.

    Returns:
        The normal form: ``scheme://host[:port]/path[?sorted&query]``.

    Raises:
        InvalidURLError: the URL cannot be parsed or normalised.
    """
    return _DEFAULT(url, base)


def normalise_or_none(url: str) -> str | None:
    """The normal form of ``url`` by the default normaliser, None when it cannot be normalised
    (a record's default id: a URL nobody can read is no record)."""
    try:
        return _DEFAULT(url)
    except InvalidURLError:
        return None


def normalise_urls(urls: Iterable[str], base: str | None = None) -> Iterator[str | InvalidURLError]:
    """Normalise many URLs, yielding the error in place of each URL that cannot be read."""
    for url in urls:
        try:
            yield _DEFAULT(url, base)
        except InvalidURLError as exc:
            yield exc


def split_segment(segment: str) -> tuple[str, ...]:
    """Split a path segment into tokens at ``-``, ``_``, ``.`` and digit/letter boundaries.

    Separators are tokens of their own and percent-escapes stay inside word tokens, so
    ``"".join(split_segment(s)) == s``: ``"book-17.html"`` gives
    ``("book", "-", "17", ".", "html")``.
    """
    return tuple(_TOKEN_RE.findall(segment))


def parse_normalised(url: str) -> URLTokens:
    """Split a URL already in normal form into its parts, without checking it.

    Raises:
        InvalidURLError: the string is not an absolute URL at all.
    """
    scheme_end = url.find("://")
    if scheme_end < 0:
        raise InvalidURLError(url, "not an absolute URL")
    rest_start = scheme_end + 3
    path_start = url.find("/", rest_start)
    query_start = url.find("?", rest_start)
    if path_start < 0 or 0 <= query_start < path_start:
        path_start = query_start if query_start >= 0 else len(url)
    host = url[rest_start:path_start]
    if query_start >= 0:
        path, query = url[path_start + 1 : query_start], url[query_start + 1 :]
    else:
        path, query = url[path_start + 1 :], ""
    pairs: list[tuple[str, str | None]] = []
    if query:
        for part in query.split("&"):
            key, eq, value = part.partition("=")
            pairs.append((key, value if eq else None))
    return URLTokens(url[:scheme_end], host, tuple(path.split("/")), tuple(pairs))


def tokenise(url: str, base: str | None = None) -> URLTokens:
    """Normalise ``url`` (resolved against ``base``) and split it into its parts.

    Raises:
        InvalidURLError: the URL cannot be parsed or normalised.
    """
    return parse_normalised(normalise_url(url, base))
