"""Which hosts a fetch may reach, the check of the URL a command is given, and small URL
helpers shared by both fetchers.

A crawl stays inside its *scope*: the hosts of the site being crawled plus the hosts the user
allows (a CDN). The browser enforces it on every request a page makes (a script, a frame, a
navigation a probe triggers); the HTTP fetcher enforces it on the URL asked for. A scope entry
``host:port`` matches that exact origin's host and port, ``host`` matches the host on any port,
and ``.example.com`` matches ``example.com`` and all its subdomains.

Hosts are compared in their ASCII form: an internationalised name (``bücher.example``) is
turned into punycode (``xn--bcher-kva.example``, RFC 3490), the form Chromium and httpx send —
by :func:`deepcrawl.urls.ascii_host`, as in the URL normal form.

Every command checks the URL it starts from with :func:`check_url` before it fetches anything
(``crawl`` its start URL and ``--like`` URLs, ``render``, ``forms``, ``query``, ``discover`` and
``login`` the page they are given), so one URL is refused or taken alike by all of them.
"""

from __future__ import annotations

import re
from urllib.parse import urldefrag, urlsplit, urlunsplit

from deepcrawl.errors import InvalidURLError
from deepcrawl.urls import MAX_START_URL_LENGTH, ascii_host
from deepcrawl.userinfo import split_userinfo

__all__ = ["Scope", "ascii_host", "check_url", "host_of", "netloc_of", "strip_fragment"]

_LOCAL_SCHEMES = frozenset({"data", "blob", "about", "chrome-error"})
_SCHEMES = frozenset({"http", "https"})
#: Dot-separated labels of letters, digits, ``-`` and ``_`` (an IPv4 address is one too).
_HOST = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?")


def strip_fragment(url: str) -> str:
    """``url`` without its ``#fragment``."""
    return urldefrag(url)[0]


def netloc_of(host: str, port: int | None = None) -> str:
    """``host[:port]`` as a URL spells it: an IPv6 literal in brackets (RFC 3986 §3.2.2), so
    that the result is a URL's authority again (``[::1]:8080``, not ``::1:8080``)."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    return f"{host}:{port}" if port is not None else host


def _without_port(entry: str) -> str:
    """A scope entry or :func:`host_of` value less its ``:port`` (an IPv6 literal keeps its
    colons: ``[::1]:8080`` → ``[::1]``)."""
    if entry.startswith("["):
        return entry[: entry.find("]") + 1] or entry
    return entry.rsplit(":", 1)[0]


def host_of(url: str) -> str:
    """``host:port`` of an http(s) URL (port only when explicit), lower-cased, the host in
    ASCII (punycode), an IPv6 literal in brackets (:func:`netloc_of`); '' otherwise."""
    try:
        parts = urlsplit(url)
        port = parts.port
        host = ascii_host(parts.hostname or "")
    except ValueError:
        return ""
    if parts.scheme not in {"http", "https"} or not host:
        return ""
    return netloc_of(host, port or None)


def check_url(url: str, *, max_length: int = MAX_START_URL_LENGTH, what: str = "URL") -> str:
    """``url`` checked, as given but for an internationalised host, which becomes punycode,
    and without a user name and password: a URL the crawl keeps never carries them
    (:func:`deepcrawl.userinfo.split_userinfo`; a command makes them the origin's HTTP
    authentication first, :func:`deepcrawl.browser.access.check_user_url`).

    Args:
        url: an absolute URL.
        max_length: the longest URL accepted.
        what: what the URL is, for the message (``start URL``, ``--like``).

    Raises:
        InvalidURLError: too long, not http(s), no host, a bad port or host name.
    """
    url, _ = split_userinfo(url)  # and the message of an error below shows no password
    text = url.strip()
    if len(text) > max_length:
        raise InvalidURLError(url, f"the {what} is longer than {max_length} characters")
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise InvalidURLError(url, f"the {what} cannot be parsed ({exc})") from exc
    if parts.scheme.lower() not in _SCHEMES:
        raise InvalidURLError(url, f"the {what} must start with http:// or https://")
    if not parts.hostname:
        raise InvalidURLError(url, f"the {what} has no host")
    try:
        host = ascii_host(parts.hostname)
    except ValueError as exc:
        raise InvalidURLError(url, f"the {what}'s host: {exc}") from exc
    if ":" not in host and not _HOST.fullmatch(host):  # an IPv6 literal has colons
        raise InvalidURLError(url, f"the {what}'s host {host!r} is no valid host name")
    if parts.hostname.isascii():  # as given: the store knows earlier crawls by this spelling
        return text
    netloc = netloc_of(host, parts.port)  # no user info: split off above
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class Scope:
    """A growable set of allowed hosts.

    Args:
        hosts: initial entries (``host``, ``host:port`` or ``.domain``).
        implicit: when True, :meth:`admit` adds the host of every URL the crawler itself asks
            for (the scope of a one-page render is that page's host); when False such a URL
            outside the scope is refused.
    """

    def __init__(
        self, hosts: set[str] | frozenset[str] | tuple[str, ...] = (), *, implicit: bool
    ) -> None:
        self._exact: set[str] = set()
        self._any_port: set[str] = set()
        self._suffixes: set[str] = set()
        self.implicit = implicit
        for host in hosts:
            self.add(host)

    def add(self, entry: str) -> None:
        """Allow one more host entry (see the module docstring for the forms)."""
        entry = entry.strip().lower()
        if not entry:
            return
        if "://" in entry:
            entry = host_of(entry)
        elif not entry.isascii():
            name, colon, port = entry.rpartition(":") if ":" in entry else (entry, "", "")
            dot = "." if name.startswith(".") else ""
            entry = dot + ascii_host(name.lstrip(".")) + colon + port
        elif entry.count(":") > 1 and not entry.startswith("["):  # a bare IPv6 literal
            entry = netloc_of(entry)
        if entry.startswith("."):
            self._suffixes.add(entry)
        elif _without_port(entry) != entry:
            self._exact.add(entry)
        else:
            self._any_port.add(entry)

    def __bool__(self) -> bool:
        return bool(self._exact or self._any_port or self._suffixes)

    def allows(self, url: str) -> bool:
        """True when a page may load ``url`` (local schemes such as ``data:`` always may)."""
        scheme = url.split(":", 1)[0].lower()
        if scheme in _LOCAL_SCHEMES:
            return True
        host = host_of(url)
        if not host:
            return False
        if host in self._exact:
            return True
        name = _without_port(host)
        if name in self._any_port:
            return True
        return any(name == s[1:] or name.endswith(s) for s in self._suffixes)

    def admit(self, url: str) -> bool:
        """Decide on a URL the crawler itself asked for; extends the scope when implicit."""
        if self.allows(url):
            return True
        if self.implicit and host_of(url):
            self.add(host_of(url))
            return True
        return False
