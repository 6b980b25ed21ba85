"""Site access: cookie files, storage states, headers and proxies read once, handed alike to
the browser (Playwright context options) and to plain HTTP (httpx options); bad input named.

The httpx side is checked with ``httpx.MockTransport`` (what the client would send); the
browser side end to end in ``tests/integration/browser/test_site_access.py``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import httpx
import pytest

from deepcrawl.browser.access import (
    SiteAccess,
    check_user_url,
    load_cookies,
    load_storage_state,
    origin_of,
    parse_header,
    parse_headers,
    parse_proxy,
    start_origins,
    with_start_origin,
    with_url_credentials,
)
from deepcrawl.cli._access import AccessFlags
from deepcrawl.errors import AccessError, ConfigError, InvalidURLError
from deepcrawl.settings import Settings, load_settings
from deepcrawl.settings.fetching import default_user_agent

FUTURE = int(time.time()) + 86_400


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in ("DEEPCRAWL_CONFIG", "DEEPCRAWL_ACCESS__PROXY", "DEEPCRAWL_ACCESS__HEADERS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


# -- headers ------------------------------------------------------------------------------------


def test_a_header_line_is_split_at_the_first_colon() -> None:
    assert parse_header("X-Key:  a:b ") == ("X-Key", "a:b")
    assert parse_headers(["X-A: 1", "x-a: 2", "X-B: 3"]) == {"x-a": "2", "X-B": "3"}


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("X-Key", "expected 'Name: value'"),
        ("Bad Name: 1", "not a valid header name"),
        ("X-Key: a\x00b", "control characters"),
        ("User-Agent: me", "--user-agent"),
        ("cookie: a=1", "--cookies"),
    ],
)
def test_a_malformed_header_is_named_with_the_reason(line: str, why: str) -> None:
    with pytest.raises(AccessError, match=why) as error:
        parse_header(line)
    assert repr(line) in str(error.value)


# -- proxies ------------------------------------------------------------------------------------


def test_a_proxy_url_is_split_for_playwright_and_kept_whole_for_httpx() -> None:
    proxy = parse_proxy("http://me:p%40ss@127.0.0.1:3128")
    assert proxy.server == "http://127.0.0.1:3128"
    assert (proxy.username, proxy.password) == ("me", "p@ss")
    assert proxy.url == "http://me:p%40ss@127.0.0.1:3128"
    assert parse_proxy("http://proxy.example").server == "http://proxy.example:80"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://proxy:21", "scheme"),
        ("http://", "no host"),
        ("http://proxy:99999", "out of range|port"),
        ("http://proxy:3128/path", "no path"),
    ],
)
def test_a_bad_proxy_url_is_named(url: str, why: str) -> None:
    with pytest.raises(AccessError, match=why):
        parse_proxy(url)


# -- cookie files -------------------------------------------------------------------------------


def test_netscape_cookies_keep_host_only_domain_and_http_only_cookies(tmp_path: Path) -> None:
    path = tmp_path / "cookies.txt"
    path.write_text(
        "# Netscape HTTP Cookie File\n\n"
        f".example.org\tTRUE\t/\tTRUE\t{FUTURE}\tsid\tabc\n"
        "#HttpOnly_shop.example.org\tFALSE\t/cart\tFALSE\t0\tcart\t42\n"
        "old.example.org\tFALSE\t/\tFALSE\t1000\tgone\tx\n"
    )
    sid, cart = load_cookies(path)  # the expired one is left out
    assert (sid["domain"], sid["secure"], sid["expires"]) == (".example.org", True, FUTURE)
    assert (cart["domain"], cart["path"], cart["httpOnly"]) == ("shop.example.org", "/cart", True)
    assert cart["expires"] == -1  # a session cookie


def test_json_cookies_of_playwright_and_of_browser_extensions(tmp_path: Path) -> None:
    path = tmp_path / "cookies.json"
    path.write_text(
        json.dumps(
            [
                {"name": "a", "value": "1", "domain": "example.org", "path": "/",
                 "expires": -1, "httpOnly": False, "secure": False, "sameSite": "Strict"},
                {"name": "b", "value": "2", "domain": "example.org", "hostOnly": False,
                 "expirationDate": FUTURE, "sameSite": "no_restriction", "secure": True},
                {"name": "c", "value": "3", "domain": ".example.org", "hostOnly": True,
                 "session": True, "sameSite": "unspecified"},
                {"name": "d", "value": "4", "domain": "example.org", "sameSite": "no_restriction"},
            ]
        )
    )  # fmt: skip
    a, b, c, d = load_cookies(path)
    assert (a["domain"], a["sameSite"]) == ("example.org", "Strict")
    assert (b["domain"], b["sameSite"], b["expires"]) == (".example.org", "None", FUTURE)
    assert (c["domain"], c["sameSite"], c["expires"]) == ("example.org", "Lax", -1)
    assert d["sameSite"] == "Lax"  # SameSite=None needs Secure: Chromium would drop it


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("example.org\tFALSE\t/\n", "line 1: expected 7 tab-separated fields"),
        ("example.org\tFALSE\t/\tFALSE\tsoon\tn\tv\n", "line 1: expiry 'soon'"),
        ("[{]", "invalid JSON"),
        ('{"no": "cookies"}', "expected a JSON list"),
        ('[{"name": "n", "value": "v"}]', "cookie 1 \\(n\\): needs a 'domain'"),
        ('[{"domain": "x.org"}]', "cookie 1: needs a 'name'"),
    ],
)
def test_a_bad_cookie_file_is_named_with_the_place(tmp_path: Path, text: str, why: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(AccessError, match=why) as error:
        load_cookies(path)
    assert str(path) in str(error.value)


def test_an_unreadable_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(AccessError, match="cookie file .*missing.txt: cannot read it"):
        load_cookies(tmp_path / "missing.txt")
    with pytest.raises(AccessError, match="storage state .*: cannot read it"):
        load_storage_state(tmp_path)
    (tmp_path / "state.json").write_text('{"origins": []}')
    with pytest.raises(AccessError, match="'cookies' list"):
        load_storage_state(tmp_path / "state.json")


# -- one access for both fetchers ---------------------------------------------------------------


def _state(tmp_path: Path) -> Path:
    path = tmp_path / "state.json"
    cookie = {"name": "sid", "value": "from-state", "domain": "127.0.0.1", "path": "/",
              "expires": -1, "httpOnly": True, "secure": False, "sameSite": "Lax"}  # fmt: skip
    storage = {"origin": "http://127.0.0.1:8000", "localStorage": [{"name": "k", "value": "v"}]}
    path.write_text(json.dumps({"cookies": [cookie], "origins": [storage]}))
    return path


def _access(tmp_path: Path, **access: object) -> SiteAccess:
    settings = Settings().with_overrides(access=access, http={"user_agent": "test-agent/1"})
    return SiteAccess.from_settings(settings)


def test_both_fetchers_get_the_same_agent_headers_cookies_and_proxy(tmp_path: Path) -> None:
    cookies = tmp_path / "cookies.txt"
    cookies.write_text("127.0.0.1\tFALSE\t/\tFALSE\t0\tsid\tfrom-file\n")
    access = _access(
        tmp_path,
        cookies=cookies,
        storage_state=_state(tmp_path),
        headers={"X-Key": "k"},
        proxy="http://u:p@127.0.0.1:3128",
    )
    context = access.context_options()
    assert context["user_agent"] == "test-agent/1"
    assert "extra_http_headers" not in context  # Chromium would send them to every origin
    assert context["proxy"] == {"server": "http://127.0.0.1:3128", "username": "u", "password": "p"}
    state = context["storage_state"]
    assert [c["value"] for c in state["cookies"]] == ["from-file"]  # the file's replaces
    assert state["origins"][0]["localStorage"] == [{"name": "k", "value": "v"}]
    client = access.client_options()
    assert client["headers"] == {"User-Agent": "test-agent/1"}  # the headers: by origin
    assert client["event_hooks"]["request"] == [access.add_credentials]
    assert access.proxy is not None
    assert access.proxy.url == "http://u:p@127.0.0.1:3128"


@pytest.mark.parametrize(
    ("domain", "url", "sent"),
    [
        ("127.0.0.1", "http://127.0.0.1:8000/a", True),
        ("localhost", "http://localhost:8000/a", True),  # no ".local" rewriting
        ("example.org", "http://example.org/a", True),
        ("example.org", "http://www.example.org/a", False),  # host-only
        (".example.org", "http://www.example.org/a", True),
        ("example.org", "http://other.org/a", False),
    ],
)
async def test_httpx_sends_a_cookie_where_a_browser_would(
    tmp_path: Path, domain: str, url: str, sent: bool
) -> None:
    path = tmp_path / "cookies.json"
    path.write_text(json.dumps([{"name": "sid", "value": "1", "domain": domain, "path": "/"}]))
    seen: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("cookie", ""))
        return httpx.Response(200)

    access = _access(tmp_path, cookies=path)
    assert access.cookies_for(url) == ([("sid", "1")] if sent else [])
    transport = httpx.MockTransport(answer)
    async with httpx.AsyncClient(transport=transport, **access.client_options()) as client:
        await client.get(url)
    assert seen == (["sid=1"] if sent else [""])


def test_a_bad_header_in_the_settings_file_is_named(tmp_path: Path) -> None:
    (tmp_path / "deepcrawl.toml").write_text("[access.headers]\n'X Bad' = '1'\n")
    with pytest.raises(AccessError, match="'X Bad: 1'"):
        SiteAccess.from_settings(load_settings())


def test_headers_and_proxy_come_from_the_settings_file(tmp_path: Path) -> None:
    (tmp_path / "deepcrawl.toml").write_text(
        "[access]\nproxy = 'http://127.0.0.1:3128'\n[access.headers]\nX-Key = 'k'\n"
    )
    access = SiteAccess.from_settings(load_settings())
    assert access.headers == {"X-Key": "k"}
    assert access.proxy is not None


# -- the command-line flags ---------------------------------------------------------------------


def test_flags_become_settings_overrides_and_flags_not_given_change_nothing(
    tmp_path: Path,
) -> None:
    (tmp_path / "deepcrawl.toml").write_text("[access]\nproxy = 'http://127.0.0.1:1'\n")
    flags = AccessFlags(header=("X-A: 1",), user_agent="me/1")
    settings = load_settings(**flags.overrides())
    assert settings.access.headers == {"X-A": "1"}
    assert settings.http.user_agent == "me/1"
    assert settings.access.proxy == "http://127.0.0.1:1"  # from the file: no --proxy given
    assert load_settings(**AccessFlags().overrides()) == load_settings()
    with pytest.raises(ConfigError, match="'nonsense'"):
        AccessFlags(header=("nonsense",)).overrides()


def test_the_default_user_agent_names_deepcrawl_and_its_version_and_no_made_up_contact() -> None:
    agent = default_user_agent()
    assert agent.startswith("deepcrawl/")
    assert "example" not in agent
    assert "invalid" not in agent


async def test_paths_secure_cookies_and_cookies_the_site_set_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "cookies.txt"
    path.write_text(
        "shop.example\tFALSE\t/\tFALSE\t0\tsid\told\n"
        "shop.example\tFALSE\t/cart\tFALSE\t0\tcart\t1\n"
        "shop.example\tFALSE\t/\tTRUE\t0\ttoken\tt\n"
    )
    access = _access(tmp_path, cookies=path)
    assert access.cookies_for("http://shop.example/cart/3") == [("cart", "1"), ("sid", "old")]
    assert access.cookies_for("http://shop.example/cartoon") == [("sid", "old")]
    assert ("token", "t") in access.cookies_for("https://shop.example/")
    request = httpx.Request("GET", "http://shop.example/", headers={"Cookie": "sid=new"})
    await access.add_credentials(request)
    assert request.headers["cookie"] == "sid=new"  # the site's newer session wins


# -- which origins get the headers --------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "origin"),
    [
        ("http://Example.ORG/a?b#c", "http://example.org"),
        ("http://example.org:80/", "http://example.org"),
        ("https://example.org:443/x", "https://example.org"),
        ("http://127.0.0.1:8000/rec/7", "http://127.0.0.1:8000"),
        ("http://bücher.example/", "http://xn--bcher-kva.example"),
        ("http://[::1]:81/", "http://[::1]:81"),
        ("ftp://example.org/", None),
        ("not a url", None),
    ],
)
def test_an_origin_is_scheme_host_and_a_port_other_than_the_default(
    url: str, origin: str | None
) -> None:
    assert origin_of(url) == origin


def test_a_start_url_brings_its_origin_and_over_http_its_https_upgrade() -> None:
    assert start_origins("http://example.org/search") == (
        "http://example.org",
        "https://example.org",
    )
    assert start_origins("http://127.0.0.1:8000/") == ("http://127.0.0.1:8000",)
    assert start_origins("https://example.org/") == ("https://example.org",)
    settings = Settings().with_overrides(access={"credential_origins": ["https://api.example"]})
    origins = with_start_origin(settings, "https://example.org/").access.credential_origins
    assert origins == ("https://api.example", "https://example.org")
    again = with_start_origin(
        with_start_origin(settings, "https://example.org/"), "https://example.org/x"
    )
    assert again.access.credential_origins == origins


@pytest.mark.parametrize("entry", ["example.org", "ftp://example.org", "https://example.org/path"])
def test_a_credential_origin_that_is_no_origin_is_named(tmp_path: Path, entry: str) -> None:
    with pytest.raises(AccessError, match=f"credential origin '{entry}'"):
        _access(tmp_path, credential_origins=[entry])


async def test_plain_http_sends_the_headers_to_the_credential_origins_only(
    tmp_path: Path,
) -> None:
    cookies = tmp_path / "cookies.txt"
    cookies.write_text("site.example\tFALSE\t/\tFALSE\t0\tsid\t1\n")
    access = _access(
        tmp_path,
        cookies=cookies,
        headers={"Authorization": "Bearer t", "X-Key": "k"},
        credential_origins=["http://site.example", "https://api.example"],
    )
    seen: dict[str, httpx.Headers] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        seen[str(request.url)] = request.headers
        moved = {
            "/away": "http://cdn.example/x",  # another origin: nothing of the access
            "/api": "https://api.example/v1",  # a named one: the headers again
            "/port": "http://site.example:8080/y",  # another port: another origin
        }.get(request.url.path)
        if moved and request.url.host == "site.example" and request.url.port is None:
            return httpx.Response(302, headers={"Location": moved})
        return httpx.Response(200)

    async with httpx.AsyncClient(
        transport=httpx.MockTransport(answer), follow_redirects=True, **access.client_options()
    ) as client:
        for path in ("/away", "/api", "/port"):
            await client.get("http://site.example" + path)

    def sent(url: str) -> tuple[str | None, str | None, str | None]:
        headers = seen[url]
        return headers.get("authorization"), headers.get("x-key"), headers.get("cookie")

    assert sent("http://site.example/away") == ("Bearer t", "k", "sid=1")
    assert sent("http://cdn.example/x") == (None, None, None)
    assert sent("https://api.example/v1") == ("Bearer t", "k", None)  # a cookie of another host
    assert sent("http://site.example:8080/y") == (None, None, "sid=1")  # RFC 6265: any port


async def test_a_header_the_request_set_itself_stays_on_another_origin(tmp_path: Path) -> None:
    access = _access(tmp_path, headers={"Accept": "application/json"})
    request = httpx.Request("GET", "http://cdn.example/", headers={"Accept": "text/html"})
    await access.add_credentials(request)
    assert request.headers["accept"] == "text/html"


def test_the_credential_origin_flag_adds_to_the_settings() -> None:
    flags = AccessFlags(header=("X-A: 1",), credential_origin=("https://api.example",))
    settings = load_settings(**flags.overrides())
    assert settings.access.credential_origins == ("https://api.example",)


# -- credentials in a URL -----------------------------------------------------------------------

ALICE = "Basic YWxpY2U6UzNjcmV0UHc="  # alice:S3cretPw


def test_a_start_url_with_credentials_is_checked_without_them_and_they_go_to_its_origins() -> None:
    settings = Settings().with_overrides(access={"credential_origins": ["https://api.example"]})
    url, with_login = check_user_url(settings, "http://alice:S3cretPw@bücher.example/search")
    assert url == "http://xn--bcher-kva.example/search"
    assert with_login.access.credential_origins == (
        "https://api.example",
        "http://alice:S3cretPw@xn--bcher-kva.example",
        "https://alice:S3cretPw@xn--bcher-kva.example",
    )
    # percent-encoded as given, decoded once when read
    _, encoded = check_user_url(Settings(), "http://a%40b:p%3Aw@[::1]:8080/")
    assert encoded.access.credential_origins == ("http://a%40b:p%3Aw@[::1]:8080",)
    login = SiteAccess.from_settings(encoded).logins["http://[::1]:8080"]
    assert (login.user, login.password) == ("a@b", "p:w")


def test_a_bad_start_url_is_named_without_its_password() -> None:
    with pytest.raises(InvalidURLError) as raised:
        check_user_url(Settings(), "ftp://alice:S3cretPw@host/", what="start URL")
    assert "S3cretPw" not in str(raised.value)
    assert "S3cretPw" not in raised.value.url


def test_an_example_with_credentials_adds_them_one_without_adds_nothing() -> None:
    settings = with_url_credentials(Settings(), ["/book/1", "http://example.org/book/2"])
    assert settings.access.credential_origins == ()
    settings = with_url_credentials(settings, ["http://alice:S3cretPw@127.0.0.1:81/book/3"])
    assert settings.access.credential_origins == ("http://alice:S3cretPw@127.0.0.1:81",)


def test_a_login_goes_to_its_origin_only_and_replaces_a_given_authorization_there(
    tmp_path: Path,
) -> None:
    access = _access(
        tmp_path,
        headers={"Authorization": "Bearer t", "X-Key": "k"},
        credential_origins=["http://alice:S3cretPw@site.example", "https://api.example"],
    )
    assert access.headers_for("http://site.example/x") == {"X-Key": "k", "Authorization": ALICE}
    assert access.headers_for("https://api.example/v1") == {
        "Authorization": "Bearer t",
        "X-Key": "k",
    }
    assert access.headers_for("http://site.example:8080/") == {}
    assert access.headers_for("http://cdn.example/") == {}
    assert "S3cretPw" not in repr(access)
    # a login with no headers still signs its origin's requests
    alone = _access(tmp_path, credential_origins=["http://alice:S3cretPw@site.example"])
    assert alone.signs
    assert alone.headers_for("http://site.example/") == {"Authorization": ALICE}
    assert not _access(tmp_path, credential_origins=["http://site.example"]).signs


async def test_plain_http_sends_a_login_to_its_origin_and_drops_it_on_a_redirect_away(
    tmp_path: Path,
) -> None:
    _, settings = check_user_url(Settings(), "http://alice:S3cretPw@site.example/")
    access = SiteAccess.from_settings(settings)
    seen: dict[str, str | None] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        seen[str(request.url)] = request.headers.get("authorization")
        moved = {"/away": "http://cdn.example/x", "/up": "https://site.example/y"}
        if request.url.scheme == "http" and request.url.host == "site.example":
            return httpx.Response(302, headers={"Location": moved[request.url.path]})
        return httpx.Response(200)

    async with httpx.AsyncClient(
        transport=httpx.MockTransport(answer), follow_redirects=True, **access.client_options()
    ) as client:
        await client.get("http://site.example/away")
        await client.get("http://site.example/up")
    assert seen == {
        "http://site.example/away": ALICE,
        "http://cdn.example/x": None,
        "http://site.example/up": ALICE,
        "https://site.example/y": ALICE,  # the https upgrade, as the start URL's headers
    }


def test_a_credential_origin_with_a_path_is_named_without_its_password(tmp_path: Path) -> None:
    with pytest.raises(AccessError, match=r"'http://alice:\*\*\*@site.example/x'") as raised:
        _access(tmp_path, credential_origins=["http://alice:S3cretPw@site.example/x"])
    assert "S3cretPw" not in str(raised.value)
