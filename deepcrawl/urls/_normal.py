"""The normal form of a URL: :class:`URLNormaliser` and the functions over its default
instance (the rules are listed in :mod:`deepcrawl.urls`)."""

from __future__ import annotations

import ipaddress
import re
from string import ascii_letters, digits, hexdigits
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote_to_bytes, urljoin

import idna
from w3lib.url import safe_url_string

from deepcrawl.errors import InvalidURLError
from deepcrawl.urls._query import split_query
from deepcrawl.urls._sessions import SESSION_PARAMS, SESSION_VALUE_MIN_LENGTH, SessionParams

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = [
    "ALLOWED_SCHEMES",
    "MAX_START_URL_LENGTH",
    "MAX_URL_LENGTH",
    "URLNormaliser",
    "ascii_host",
    "normalise_or_none",
    "normalise_url",
    "normalise_urls",
]

#: Longer URLs are refused (:class:`~deepcrawl.errors.InvalidURLError`): the store keeps URLs of
#: up to 4,096 characters, and a longer link is a trap more often than a record.
MAX_URL_LENGTH = 4096
#: The longest start or ``--like`` URL a crawl accepts: the store keeps start URLs of up to
#: 2,048 characters (the sitemaps protocol's limit too).
MAX_START_URL_LENGTH = 2048
#: The schemes a URL may have; ``mailto:``, ``javascript:`` … are refused.
ALLOWED_SCHEMES = ("http", "https")

_UNRESERVED = frozenset(ascii_letters + digits + "-._~")
#: Reserved characters that delimit nothing in a form-encoded query (``&``, ``;``, ``=``, ``+``,
#: ``#`` do — ``;`` where a site separates its parameters by it, :mod:`deepcrawl.urls._query`;
#: ``'`` is encoded by browsers in a query): their escapes are decoded there.
_QUERY_DECODED = _UNRESERVED | frozenset("!$()*,/:?@")


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
#: What a user name and password keep raw (RFC 3986 §3.2.1; ``%`` starts an escape kept as is).
_USERINFO_RAW = "!$&'()*+,;=:%"
#: The URL Standard's forbidden domain code points that can reach a host (after decoding).
_BAD_HOST_RE = re.compile(r"[\x00-\x20\x7f#%/:<>?@\[\\\]^|]")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}


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
        if ";" in query:  # parameters separated by ";" stay so (deepcrawl.urls._query)
            items, separator = split_query(query)
            items = [item.replace("=", "\0") for item in items]
        else:
            items, separator = query.replace("=", "\0").split("&"), "&"
        if "" in items:
            items = [item for item in items if item]
        if self.sessions.names:
            items = self.sessions.drop_from_items(items)
            if not items:
                return origin, path, ""
        if len(items) > 1:
            items.sort()
        return origin, path, separator.join(items).replace("\0", "=")

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
