"""URL normalisation and tokenising (Hernández et al., "Tokeniser"; RFC 3986).

The prototyper learns the shapes of a site's URLs, so two spellings of one URL must become one
string before anything is counted. :func:`normalise_url` gives that *normal form*:

* relative references (``/ref=logo``, ``./ref=logo``) are resolved against a base (RFC 3986 §5.2);
* scheme and host are lower-cased, the scheme's default port dropped, an empty path becomes ``/``
  (§6.2.2.1, §6.2.3);
* percent-encoding is normalised: escapes of unreserved characters are decoded, the others get
  upper-case hex; characters that may not appear raw (non-ASCII, ``"``, ``<`` …) are encoded as
  UTF-8 escapes, as browsers do (§2.1, §6.2.2.2);
* dot segments are removed (§5.2.4) and the fragment dropped;
* query parameters are sorted — order never matters, repeated keys are kept, empty ones dropped.

Whatever cannot be read raises :class:`~deepcrawl.errors.InvalidURLError`, which keeps the URL:
whitespace or control characters, a ``%`` without two hex digits, an overlong URL, an unsupported
scheme, a missing host, a bad port.

:func:`tokenise` splits a normal form into scheme, host, path segments and the query as sorted
``(key, value)`` pairs; :func:`split_segment` splits a segment into tokens at ``-``, ``_``, ``.``
and digit/letter boundaries. Everything is plain string work and precompiled regular expressions:
it runs on millions of URLs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from string import ascii_letters, digits, hexdigits
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from deepcrawl.errors import InvalidURLError
from deepcrawl.settings import PrototypeSettings

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

__all__ = [
    "URLNormaliser",
    "URLTokens",
    "normalise_url",
    "normalise_urls",
    "parse_normalised",
    "split_segment",
    "tokenise",
]

_UNRESERVED = frozenset(ascii_letters + digits + "-._~")
#: Every two-hex-digit escape, in any case, mapped to its normal form.
_ESCAPES = {
    f"{a}{b}": (chr(int(a + b, 16)) if chr(int(a + b, 16)) in _UNRESERVED else f"%{a}{b}".upper())
    for a in hexdigits
    for b in hexdigits
}
_ESCAPE_RE = re.compile(r"%([0-9A-Fa-f]{2})")
_BAD_ESCAPE_RE = re.compile(r"%(?![0-9A-Fa-f]{2})")
_WHITESPACE_RE = re.compile(r"[\x00-\x20\x7f]")
#: Characters RFC 3986 never allows raw (besides whitespace and controls, refused above).
_NEEDS_QUOTING_RE = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]")
_SCHEME_RE = re.compile(r"([A-Za-z][A-Za-z0-9+.\-]*):")
_ABSOLUTE_RE = re.compile(
    r"([A-Za-z][A-Za-z0-9+.\-]*)://([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#.*)?\Z", re.S
)
_PORT_RE = re.compile(r"[0-9]*")
_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}
_TOKEN_RE = re.compile(r"[0-9]+|[\-_.]|(?:%[0-9A-Fa-f]{2}|[^0-9\-_.%])+|%")
_STRIP = " \t\n\r\f\v"


def _quote_match(match: re.Match[str]) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8", "surrogatepass"))


def _quote(part: str) -> str:
    """Encode, as UTF-8 escapes, the characters that may not appear raw (non-ASCII, ``"`` …)."""
    return _NEEDS_QUOTING_RE.sub(_quote_match, part)


def _normalise_escapes(url: str, part: str) -> str:
    """Decode escapes of unreserved characters, upper-case the others."""
    if _BAD_ESCAPE_RE.search(part):
        raise InvalidURLError(url, "'%' not followed by two hex digits")
    return _ESCAPE_RE.sub(lambda m: _ESCAPES[m.group(1)], part)


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


class URLNormaliser:
    """Turns URLs into their normal form; reusable and cheap to call millions of times.

    Args:
        settings: the tokeniser's settings (longest URL, schemes accepted).
    """

    def __init__(self, settings: PrototypeSettings | None = None) -> None:
        settings = settings or PrototypeSettings()
        self.max_length = settings.max_url_length
        self.schemes = frozenset(s.lower() for s in settings.allowed_schemes)
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
        url = url.strip(_STRIP)
        if len(url) > self.max_length:
            raise InvalidURLError(original, f"longer than {self.max_length} characters")
        odd = _NEEDS_QUOTING_RE.search(url) is not None
        if odd and _WHITESPACE_RE.search(url):
            raise InvalidURLError(original, "contains whitespace or a control character")
        match = _ABSOLUTE_RE.match(url)
        if match is None or (base is not None and not _SCHEME_RE.match(url)):
            match = self._resolve(original, url, base)
            odd = True
        scheme, authority, path, query = match.groups()
        origin = self._origins.get((scheme, authority))
        if origin is None:
            origin = self._origin(original, scheme, authority)
        if odd:
            path = _quote(path)
        if "%" in path:
            path = _normalise_escapes(original, path)
        if not path:
            path = "/"
        elif "/." in path:
            path = _remove_dot_segments(path)
        if not query:
            return origin, path, ""
        if odd:
            query = _quote(query)
        if "%" in query:  # escapes never span an "&": the whole query is normalised at once
            query = _normalise_escapes(original, query)
        # Sort items by key first: with "=" as "\0" (never in a valid URL) a plain string sort
        # orders "page=1" before "page2=1", and runs in C.
        items = query.replace("=", "\0").split("&")
        if "" in items:
            items = [item for item in items if item]
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
            host, port = hostport[: end + 1], hostport[end + 1 :]
            if port and not port.startswith(":"):
                raise InvalidURLError(original, "garbage after the IPv6 host")
            port = port[1:]
        else:
            host, _, port = hostport.partition(":")
        if not host:
            raise InvalidURLError(original, "no host")
        if not _PORT_RE.fullmatch(port) or (port and int(port) > 65535):
            raise InvalidURLError(original, f"bad port {port!r}")
        host = _normalise_escapes(original, _quote(host.lower()))
        if port and port != _DEFAULT_PORTS.get(scheme):
            host = f"{host}:{int(port)}"
        if at:
            host = f"{_normalise_escapes(original, _quote(userinfo))}@{host}"
        return host


_DEFAULT = URLNormaliser()


def normalise_url(
    url: str, base: str | None = None, *, settings: PrototypeSettings | None = None
) -> str:
    """Return the normal form of ``url`` (see the module docstring).

    Args:
        url: an absolute URL, or a relative reference when ``base`` is given.
        base: the URL of the page the reference was found on.
        settings: tokeniser settings; the defaults when None.

    Returns:
        The normal form: ``scheme://host[:port]/path[?sorted&query]``.

    Raises:
        InvalidURLError: the URL cannot be parsed or normalised.
    """
    normaliser = _DEFAULT if settings is None else URLNormaliser(settings)
    return normaliser(url, base)


def normalise_urls(
    urls: Iterable[str], base: str | None = None, *, settings: PrototypeSettings | None = None
) -> Iterator[str | InvalidURLError]:
    """Normalise many URLs, yielding the error in place of each URL that cannot be read."""
    normaliser = _DEFAULT if settings is None else URLNormaliser(settings)
    for url in urls:
        try:
            yield normaliser(url, base)
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


def tokenise(
    url: str, base: str | None = None, *, settings: PrototypeSettings | None = None
) -> URLTokens:
    """Normalise ``url`` (resolved against ``base``) and split it into its parts.

    Raises:
        InvalidURLError: the URL cannot be parsed or normalised.
    """
    return parse_normalised(normalise_url(url, base, settings=settings))
