"""The critic on every fixture site, in real Chromium: it accepts the search forms and nothing else.

Pages of every HTML kind of each site are rendered by :class:`BrowserFetcher` (live-DOM form
discovery, so the news site's script-built search form is seen); every distinct form is judged.
The fixture sites submit searches to ``/search``; every other form (login, registration,
newsletter, comments, cart, wishlist …) must be refused, and the safety gate must raise for it.
Then ``deepcrawl forms URL --json`` is run as a user would.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import AsyncIterator, Callable
from urllib.parse import urlsplit

import pytest
from deepcrawl_fixtures import SITES, FixtureServer

from deepcrawl.browser.fetcher import BrowserFetcher
from deepcrawl.errors import FetchError, UnsafeFormError
from deepcrawl.forms import FormCritic, ensure_submittable, load_critic
from deepcrawl.page import Form
from deepcrawl.search.report import page_forms
from deepcrawl.settings import FormSettings, load_settings
from tests.integration.run_cli import run_deepcrawl_process

pytestmark = pytest.mark.browser

_NOT_HTML = {"export", "api", "robots", "static", "asset", "disallowed", "unknown"}
_QUERY_FIELD = {"books": "q", "shop": "keywords", "news": "q"}


@pytest.fixture(scope="session")
def forms_settings(tmp_path_factory: pytest.TempPathFactory) -> FormSettings:
    """Settings whose critic cache is shared by the whole test session."""
    return FormSettings(model_cache_dir=tmp_path_factory.getbasetemp() / "forms-critic-cache")


@pytest.fixture(scope="session")
def critic(forms_settings: FormSettings) -> FormCritic:
    """The critic trained on formasaurus's corpus (once per session)."""
    return load_critic(forms_settings)


@pytest.fixture(scope="module")
async def fetcher() -> AsyncIterator[BrowserFetcher]:
    """One Chromium for the module, allowed on every local fixture server."""
    async with BrowserFetcher(load_settings(), ["127.0.0.1"], forms=True) as fetcher:
        yield fetcher


async def _site_forms(
    fetcher: BrowserFetcher, server: FixtureServer
) -> dict[tuple[str, ...], Form]:
    """Every distinct form on a sample of each HTML page kind of the site."""
    forms: dict[tuple[str, ...], Form] = {}
    for kind, paths in server.truth().sample_paths(per_kind=2).items():
        if kind in _NOT_HTML or kind.endswith("_submit"):
            continue
        for path in paths[:2]:
            try:
                page = await fetcher.fetch(server.url + path)
            except FetchError:  # a page kind that turned out not to be HTML
                continue
            for form in page.forms:
                key = (form.action, form.method, *(f.name or "" for f in form.fields))
                forms.setdefault(key, form)
    return forms


#: Where the fixture sites' search forms submit (the archive's site search too).
_SEARCH = frozenset({"/search", "/site-search"})


# the zoo is measured by its own suite (tests/integration/crawler/test_zoo.py)
@pytest.mark.parametrize("site", sorted(set(SITES) - {"zoo"}))
async def test_critic_accepts_only_the_search_forms(
    site: str,
    fixture_server: Callable[..., FixtureServer],
    fetcher: BrowserFetcher,
    critic: FormCritic,
) -> None:
    server = fixture_server(site)
    forms = list((await _site_forms(fetcher, server)).values())
    verdicts = critic.judge(forms)
    searches = [
        (f, v) for f, v in zip(forms, verdicts, strict=True) if urlsplit(f.action).path in _SEARCH
    ]
    others = [
        (f, v)
        for f, v in zip(forms, verdicts, strict=True)
        if urlsplit(f.action).path not in _SEARCH
    ]
    assert searches, f"no search form found on {site}"
    assert others, f"no other form found on {site}"
    for form, verdict in searches:
        assert verdict.searchable, (form.action, verdict.reasons)
        assert verdict.type == "search"
        if site in _QUERY_FIELD:
            assert verdict.query_field == _QUERY_FIELD[site]
        ensure_submittable(form, verdict)
    for form, verdict in others:
        assert not verdict.searchable, (form.action, form.fields, verdict)
        assert verdict.reasons
        with pytest.raises(UnsafeFormError):
            ensure_submittable(form, verdict)


def _cli(*args: str, settings: FormSettings) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DEEPCRAWL_FORMS__MODEL_CACHE_DIR": str(settings.model_cache_dir)}
    return run_deepcrawl_process(
        ["forms", *args],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        check=False,
    )


@pytest.mark.parametrize("browser", [True, False], ids=["browser", "http"])
def test_forms_command_json(
    browser: bool, news_server: FixtureServer, critic: FormCritic, forms_settings: FormSettings
) -> None:
    flags = [] if browser else ["--no-browser"]
    result = _cli(news_server.url + "/", "--json", *flags, settings=forms_settings)
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert isinstance(rows, list)
    for row in rows:
        assert {"action", "method", "type", "searchable", "score", "query_field"} <= row.keys()
    accepted = [r for r in rows if r["searchable"]]
    if browser:  # the news site's search form is built by a script: only the browser sees it
        assert [(urlsplit(r["action"]).path, r["query_field"]) for r in accepted] == [
            ("/search", "q")
        ]
    else:
        assert accepted == []
    assert any(r["type"] == "mailing list" and not r["searchable"] for r in rows)


def test_forms_command_errors_are_one_line(forms_settings: FormSettings) -> None:
    result = _cli("not-a-url", settings=forms_settings)
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith("error:")
    assert "not-a-url" in lines[0]


@pytest.mark.parametrize("browser", [True, False], ids=["browser", "http"])
async def test_unreachable_page_is_a_fetch_error(browser: bool) -> None:
    with pytest.raises(FetchError, match="127.0.0.1:9"):
        await page_forms("http://127.0.0.1:9/", load_settings(), browser=browser)
