"""Site access: one session, one set of headers, one user agent, one proxy for both fetchers.

A site may show its search form only to a logged-in user, or only to requests that carry a key
header, or be reachable only through a proxy. :class:`SiteAccess` reads the ``access`` settings
(and ``http.user_agent``) once and hands the *same* values to both fetchers:

* the browser, as Playwright context options (:meth:`SiteAccess.context_options`):
  ``storage_state`` (cookies and local storage), ``user_agent``, ``proxy``; the headers are
  added by the context's routes (:mod:`deepcrawl.browser.credentials`);
* plain HTTP, as httpx client options (:meth:`SiteAccess.client_options`): the user agent, a
  request hook adding the headers and the cookies (:meth:`SiteAccess.add_credentials`), and a
  proxy.

**Where credentials go.** The headers (``--header``, ``Authorization`` among them) go only to
the *credential origins*: the start URL's origin, which every command adds itself
(:func:`with_start_origin`; the https form of an http start URL on the default port too, the
upgrade a site redirects to), and those the user names (``access.credential_origins``,
``--credential-origin``). Every other request goes without them — a redirect to another origin,
a script or data from a CDN, a frame — in both fetchers, hop by hop along a redirect chain
(:meth:`SiteAccess.sends_credentials`). Cookies follow RFC 6265 instead, as a browser sends
them: by the domain and path they were given for (a host-only cookie to its host alone, a
domain cookie to its subdomains too, on any port), ``Secure`` ones over https only.

**Credentials in a URL.** A user name and password in a URL the user gives
(``http://alice:pw@host/``: the start URL, a ``--like`` example) are that origin's HTTP Basic
authentication, not part of the URL: :func:`with_start_origin` takes them off
(:func:`deepcrawl.userinfo.split_userinfo`) and keeps them on the origin's entry among the
credential origins (``http://alice:pw@host``, which ``--credential-origin`` also accepts).
Its ``Authorization`` then goes with the headers, by the same rule, to that origin only (and
its https upgrade, as the start URL's headers do) — not to the other credential origins — and
wins over an ``Authorization`` of ``--header`` there (:meth:`SiteAccess.headers_for`). The
crawl keeps, compares and shows the URL without them (:func:`check_user_url`).

Cookies come from a Netscape ``cookies.txt``, a JSON list of cookies (browser extensions'
exports and Playwright's ``context.cookies()``) or a Playwright storage state (what
``deepcrawl login`` saves); :func:`load_cookies` reads the first two, :func:`load_storage_state`
the third (:mod:`deepcrawl.browser.cookies`). Plain HTTP sends them by the browser's rules
from a request hook (:meth:`SiteAccess.add_credentials`), not through httpx's cookie jar, whose
rules differ (see there).

Environment proxies (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) are ignored
by both fetchers. Three clients would read them three ways: httpx per scheme with its own
``NO_PROXY`` rules, Chromium (on Linux, when no desktop proxy setting overrides them) with its
own, and Playwright's request client (``route.fetch``) through ``CONNECT`` tunnels even for
plain HTTP — so honouring them could only make the two fetchers' traffic differ (a page
rendered direct, the same page fetched through the proxy). A proxy is therefore one explicit
setting, ``access.proxy`` — from ``--proxy``, ``deepcrawl.toml`` or ``DEEPCRAWL_ACCESS__PROXY``
— and every request of both goes through it, loopback included. Chromium starts with
``--no-proxy-server`` and its driver without the variables (:mod:`deepcrawl.browser.chromium`);
a context's proxy overrides that flag. httpx never sees the environment's proxies because
deepcrawl always gives it its own transport (:mod:`deepcrawl.browser.http`).
"""

from __future__ import annotations

import importlib.util
import logging
import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from deepcrawl.browser.cookies import load_cookies, load_storage_state
from deepcrawl.browser.scope import check_url
from deepcrawl.errors import AccessError
from deepcrawl.urls import MAX_START_URL_LENGTH, ascii_host
from deepcrawl.userinfo import Credentials, redact, split_userinfo

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    import httpx

    from deepcrawl.settings import Settings

__all__ = [
    "SiteAccess",
    "check_user_url",
    "load_cookies",
    "load_storage_state",
    "origin_of",
    "parse_header",
    "parse_headers",
    "parse_proxy",
    "start_origins",
    "with_start_origin",
    "with_url_credentials",
]

logger = logging.getLogger(__name__)

#: RFC 9110 §5.6.2: a header name is a token.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
#: Headers with settings of their own: given as headers, the two fetchers would disagree with
#: robots.txt matching (User-Agent) or with the cookie jar (Cookie).
_OWN_SETTING = {"user-agent": "--user-agent (http.user_agent)", "cookie": "--cookies"}
_PROXY_SCHEMES = ("http", "https", "socks5")
_DEFAULT_PORTS = {"http": 80, "https": 443}


def origin_of(url: str) -> str | None:
    """The origin of an http(s) URL as ``scheme://host[:port]``: lower case, the host in ASCII
    (punycode), the port only when it is not the scheme's default; None for anything else."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
        host = ascii_host(parts.hostname or "")
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not host:
        return None
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    shown = "" if port in (None, _DEFAULT_PORTS[scheme]) else f":{port}"
    return f"{scheme}://{host}{shown}"


def start_origins(url: str) -> tuple[str, ...]:
    """The credential origins a start URL brings: its own, and for an http URL on the default
    port its https form too (the upgrade a site redirects to; requests and httpx keep
    ``Authorization`` on that redirect for the same reason)."""
    origin = origin_of(url)
    if origin is None:
        return ()
    scheme, rest = origin.split("://", 1)
    if scheme == "http" and ":" not in rest.rsplit("]", 1)[-1]:
        return (origin, f"https://{rest}")
    return (origin,)


def with_start_origin(settings: Settings, url: str) -> Settings:
    """``settings`` with the origins of the start URL ``url`` (:func:`start_origins`) among the
    credential origins (``access.credential_origins``), where the access headers go; with the
    user name and password ``url`` carries, if any, on those origins' entries: their HTTP
    Basic authentication (the module docstring, "Credentials in a URL").

    Every command calls it with the URL it starts from, as the user gave it (the crawl's start
    URL, a ``--like`` example, the page ``render`` shows, a stored site's start URL) and then
    checks that URL without its credentials (:func:`check_user_url` does both): the fetchers
    below it read the origins from the settings, as every other access setting.
    """
    bare, credentials = split_userinfo(url)
    given = tuple(settings.access.credential_origins)
    origins = start_origins(bare)
    if credentials is not None:
        userinfo = f"{quote(credentials.user, safe='')}:{quote(credentials.password, safe='')}@"
        origins = tuple(origin.replace("://", "://" + userinfo, 1) for origin in origins)
    added = tuple(o for o in origins if o not in given)
    if not added:
        return settings
    return settings.with_overrides(access={"credential_origins": [*given, *added]})


def with_url_credentials(settings: Settings, urls: Iterable[str]) -> Settings:
    """``settings`` with the user name and password of each of ``urls`` that carries any on
    its origin (:func:`with_start_origin`); a URL without them (a path among them) adds
    nothing. For the ``--like`` examples, which the crawl keeps without them."""
    for url in urls:
        if split_userinfo(url)[1] is not None:
            settings = with_start_origin(settings, url)
    return settings


def check_user_url(
    settings: Settings, url: str, *, max_length: int = MAX_START_URL_LENGTH, what: str = "URL"
) -> tuple[str, Settings]:
    """A URL the user gave, checked and without its credentials, and the settings that send
    its origin the access headers and those credentials (:func:`with_start_origin`).

    The one door of a command's URL: what the crawl stores, compares and shows from here on
    holds no password.

    Raises:
        InvalidURLError: too long, not http(s), no host, a bad port or host name
            (:func:`~deepcrawl.browser.scope.check_url`; the message shows no password).
    """
    return check_url(url, max_length=max_length, what=what), with_start_origin(settings, url)


def _credential_origins(given: Iterable[str]) -> tuple[frozenset[str], dict[str, Credentials]]:
    """The credential origins, and the HTTP Basic credentials of those that carry any."""
    origins: set[str] = set()
    logins: dict[str, Credentials] = {}
    for entry in given:
        bare, credentials = split_userinfo(entry)
        origin = origin_of(bare)
        path = urlsplit(bare.strip()).path if origin is not None else ""
        if origin is None or path not in {"", "/"} or "?" in bare or "#" in bare:
            raise AccessError(
                f"credential origin {redact(entry)!r}: expected "
                "scheme://[user:password@]host[:port] (http or https)"
            )
        origins.add(origin)
        if credentials is not None:
            logins[origin] = credentials  # a later entry for the origin wins, as a later flag
    return frozenset(origins), logins


def parse_header(line: str) -> tuple[str, str]:
    """Split one ``'Name: value'`` header line.

    Raises:
        AccessError: no colon, a name that is not an HTTP token, a control character in the
            value, or a header with a setting of its own (``User-Agent``, ``Cookie``).
    """
    name, colon, value = line.partition(":")
    name, value = name.strip(), value.strip()
    if not colon:
        raise AccessError(f"header {line!r}: expected 'Name: value'")
    _check_header(name, value, shown=line)
    return name, value


def parse_headers(lines: Iterable[str]) -> dict[str, str]:
    """Headers from ``'Name: value'`` lines (a later line with the same name wins).

    Raises:
        AccessError: a malformed line (see :func:`parse_header`).
    """
    headers: dict[str, str] = {}
    for line in lines:
        name, value = parse_header(line)
        for known in [k for k in headers if k.lower() == name.lower()]:
            del headers[known]
        headers[name] = value
    return headers


def _check_header(name: str, value: str, *, shown: str) -> None:
    if not _TOKEN.fullmatch(name):
        raise AccessError(f"header {shown!r}: {name!r} is not a valid header name")
    if any((ord(c) < 32 and c != "\t") or ord(c) == 127 for c in value):
        raise AccessError(f"header {shown!r}: control characters in the value")
    if (own := _OWN_SETTING.get(name.lower())) is not None:
        raise AccessError(f"header {shown!r}: set it with {own}, not as a header")


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    """A proxy URL split the way each fetcher wants it."""

    url: str
    """The whole URL, credentials included (httpx)."""
    server: str
    """``scheme://host:port`` (Playwright)."""
    username: str = ""
    password: str = ""


def parse_proxy(url: str) -> ProxyConfig:
    """Check a proxy URL and split it.

    Raises:
        AccessError: not ``http``/``https``/``socks5``, no host, a bad port, or a SOCKS proxy
            without httpx's ``socks`` extra installed.
    """
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise AccessError(f"proxy {url!r}: {exc}") from exc
    if parts.scheme not in _PROXY_SCHEMES:
        raise AccessError(f"proxy {url!r}: the scheme must be one of {', '.join(_PROXY_SCHEMES)}")
    if not parts.hostname:
        raise AccessError(f"proxy {url!r}: no host")
    if parts.path not in {"", "/"} or parts.query or parts.fragment:
        raise AccessError(f"proxy {url!r}: a proxy URL has no path, query or fragment")
    if parts.scheme == "socks5" and importlib.util.find_spec("socksio") is None:
        raise AccessError(f"proxy {url!r}: SOCKS needs httpx's extra: pip install 'httpx[socks]'")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    default_port = {"http": 80, "https": 443, "socks5": 1080}[parts.scheme]
    server = f"{parts.scheme}://{host}:{port or default_port}"
    return ProxyConfig(
        url=url.strip(),
        server=server,
        username=unquote(parts.username or ""),
        password=unquote(parts.password or ""),
    )


@dataclass(frozen=True, slots=True)
class SiteAccess:
    """The access every request of a crawl carries, read once from the settings.

    Attributes:
        user_agent: the User-Agent of both fetchers (``http.user_agent``), sent everywhere.
        headers: extra request headers, sent to the credential origins only.
        cookies: Playwright cookie dicts (from ``access.cookies`` and ``access.storage_state``;
            a cookie file's cookie replaces a storage state's of the same name, domain and path),
            sent by RFC 6265's rules.
        origins: the storage state's local storage per origin (the browser's only: plain HTTP
            has no scripts to read it).
        proxy: the proxy of both fetchers, or None: direct connections.
        credential_origins: the origins (:func:`origin_of`) the headers go to.
        logins: the HTTP Basic credentials of an origin, from a URL's userinfo (the module
            docstring, "Credentials in a URL").
    """

    user_agent: str
    headers: Mapping[str, str] = field(default_factory=dict)
    cookies: tuple[dict[str, Any], ...] = ()
    origins: tuple[dict[str, Any], ...] = ()
    proxy: ProxyConfig | None = None
    credential_origins: frozenset[str] = frozenset()
    logins: Mapping[str, Credentials] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Settings) -> SiteAccess:
        """Read the cookie and storage-state files and check the headers, the credential
        origins and the proxy.

        Raises:
            AccessError: a file cannot be read or parsed, a header, a credential origin or the
                proxy is malformed; the message names the input.
        """
        access = settings.access
        for name, value in access.headers.items():
            _check_header(name, value, shown=f"{name}: {value}")
        credential_origins, logins = _credential_origins(access.credential_origins)
        if access.headers and not credential_origins:
            logger.warning("the access headers go to no origin: access.credential_origins is empty")
        cookies: dict[tuple[str, str, str], dict[str, Any]] = {}
        origins: list[dict[str, Any]] = []
        if access.storage_state is not None:
            state = load_storage_state(access.storage_state)
            origins = state["origins"]
            for cookie in state["cookies"]:
                cookies[_identity(cookie)] = cookie
        if access.cookies is not None:
            for cookie in load_cookies(access.cookies):
                cookies[_identity(cookie)] = cookie
        return cls(
            user_agent=settings.http.user_agent,
            headers=dict(access.headers),
            cookies=tuple(cookies.values()),
            origins=tuple(origins),
            proxy=parse_proxy(access.proxy) if access.proxy else None,
            credential_origins=credential_origins,
            logins=logins,
        )

    def with_cookies(self, cookies: Iterable[Mapping[str, Any]]) -> SiteAccess:
        """This access with ``cookies`` (Playwright cookie dicts: ``context.cookies()``) in
        place of its own; the local storage, headers and proxy stay."""
        return replace(self, cookies=tuple(dict(cookie) for cookie in cookies))

    @property
    def signs(self) -> bool:
        """Whether any request carries headers of this access (headers or a login to send)."""
        return bool(self.headers) or bool(self.logins)

    def headers_for(self, url: str) -> dict[str, str]:
        """The headers a request for ``url`` carries: the access headers when its origin is a
        credential origin, and its origin's HTTP Basic ``Authorization`` when it has a login
        (in place of an ``Authorization`` among the headers); none for any other origin."""
        origin = origin_of(url)
        sent = dict(self.headers) if origin in self.credential_origins else {}
        login = self.logins.get(origin) if origin is not None else None
        if login is not None:
            sent = {name: value for name, value in sent.items() if name.lower() != "authorization"}
            sent["Authorization"] = login.authorization()
        return sent

    def sends_credentials(self, url: str) -> bool:
        """Whether a request for ``url`` carries headers of this access (:meth:`headers_for`)."""
        return bool(self.headers_for(url))

    def context_options(self) -> dict[str, Any]:
        """Keyword arguments of Playwright's ``browser.new_context`` for this access.

        No ``extra_http_headers``: Chromium would send them to every origin, and carry them
        over every redirect; the context's routes add them where they belong
        (:func:`deepcrawl.browser.credentials.route_context`).
        """
        options: dict[str, Any] = {"user_agent": self.user_agent}
        if self.cookies or self.origins:
            options["storage_state"] = {
                "cookies": [dict(c) for c in self.cookies],
                "origins": [dict(o) for o in self.origins],
            }
        if self.proxy is not None:
            proxy = {"server": self.proxy.server}
            if self.proxy.username:
                proxy |= {"username": self.proxy.username, "password": self.proxy.password}
            options["proxy"] = proxy
        return options

    def client_options(self) -> dict[str, Any]:
        """Keyword arguments of ``httpx.AsyncClient`` for this access: ``headers`` (the user
        agent) and ``event_hooks`` (:meth:`add_credentials`). The proxy goes into the
        transport (:attr:`proxy`)."""
        return {
            "headers": {"User-Agent": self.user_agent},
            "event_hooks": {"request": [self.add_credentials]},
        }

    def cookies_for(self, url: str) -> list[tuple[str, str]]:
        """The (name, value) pairs a browser sends to ``url``, by RFC 6265 §5.4: domain and
        host-only match, path match, ``Secure`` only over https, longer paths first."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        path = parts.path or "/"
        now = time.time()
        sent = [
            cookie
            for cookie in self.cookies
            if _domain_matches(cookie["domain"], host)
            and _path_matches(cookie["path"], path)
            and (parts.scheme == "https" or not cookie["secure"])
            and (cookie["expires"] <= 0 or cookie["expires"] > now)
        ]
        sent.sort(key=lambda cookie: -len(cookie["path"]))
        return [(cookie["name"], cookie["value"]) for cookie in sent]

    async def add_credentials(self, request: httpx.Request) -> None:
        """httpx request hook, run for every hop of a redirect chain: the headers on a request
        to a credential origin and off any other, then the cookies for its URL.

        httpx builds a redirect's request from the previous hop's headers and drops only
        ``Authorization``, and only when the origin changes: a key header would follow the
        redirect to another origin. So a hop elsewhere loses every header of the access that
        it still carries (a value the request set itself stays).

        A cookie of the same name the site set meanwhile, which httpx's own jar already sends,
        wins, as in a browser. httpx's jar (the standard library's) is not given these
        cookies: it knows no host-only cookies and no ``localhost`` (RFC 2965's ``.local``
        rewriting), so it would send them where a browser does not, and fail to send them
        where a browser does.
        """
        url = str(request.url)
        sent = self.headers_for(url)
        for name, value in self._all_headers():
            if name not in sent and request.headers.get(name) == value:
                del request.headers[name]
        request.headers.update(sent)
        present = request.headers.get("cookie", "")
        names = {part.split("=", 1)[0].strip() for part in present.split(";") if part.strip()}
        added = [f"{n}={v}" for n, v in self.cookies_for(url) if n not in names]
        if added:
            request.headers["cookie"] = "; ".join(filter(None, [present, *added]))

    def _all_headers(self) -> Iterable[tuple[str, str]]:
        """Every header this access sends somewhere: what a hop elsewhere must lose."""
        yield from self.headers.items()
        for login in self.logins.values():
            yield "Authorization", login.authorization()


def _identity(cookie: Mapping[str, Any]) -> tuple[str, str, str]:
    return (cookie["name"], cookie["domain"].lstrip("."), cookie["path"])


def _domain_matches(domain: str, host: str) -> bool:
    """RFC 6265 §5.1.3, with §5.3 step 6: a leading dot marks a domain cookie (the host and its
    subdomains), none a host-only cookie (the host alone)."""
    if domain.startswith("."):
        bare = domain[1:].lower()
        return host == bare or host.endswith("." + bare)
    return host == domain.lower()


def _path_matches(cookie_path: str, path: str) -> bool:
    """RFC 6265 §5.1.4."""
    return path == cookie_path or (
        path.startswith(cookie_path)
        and (cookie_path.endswith("/") or path[len(cookie_path)] == "/")
    )
