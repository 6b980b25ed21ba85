"""The forms of one page and the critic's verdicts on them (what ``deepcrawl forms`` shows).

:func:`page_forms` fetches a page — rendered in Chromium by default, so that forms built by
scripts are seen; or fetched over plain HTTP and parsed statically — and returns its forms.
:func:`judge_forms` runs the (cached) critic over them and builds the JSON rows the CLI prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx

from deepcrawl.errors import FetchTimeoutError, HTTPStatusError, NetworkError, NotHTMLError
from deepcrawl.forms.static import parse_forms
from deepcrawl.forms.store import load_critic

if TYPE_CHECKING:
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.forms.model import Form
    from deepcrawl.settings import Settings

__all__ = ["judge_forms", "page_forms", "verdict_rows"]


async def _http_forms(url: str, settings: Settings) -> list[Form]:
    from deepcrawl.browser.http import open_client

    try:
        async with open_client(settings) as client:
            response = await client.get(url)
    except httpx.TimeoutException as exc:
        raise FetchTimeoutError(url, "no answer within the timeout") from exc
    except httpx.HTTPError as exc:
        raise NetworkError(url, str(exc) or type(exc).__name__) from exc
    if response.status_code >= 400:
        raise HTTPStatusError(url, response.status_code)
    content_type = response.headers.get("content-type", "text/html").split(";")[0].strip()
    if content_type not in {"text/html", "application/xhtml+xml", ""}:
        raise NotHTMLError(url, content_type)
    return parse_forms(response.text, str(response.url))


async def page_forms(url: str, settings: Settings, *, browser: bool = True) -> list[Form]:
    """The forms of the page at ``url``.

    Args:
        url: the page.
        settings: deepcrawl settings.
        browser: render the page in Chromium (live-DOM discovery); False: plain HTTP and the
            static parser.

    Raises:
        FetchError: the page could not be fetched (or answered with an error status).
        BrowserError: Chromium could not be started.
    """
    if not browser:
        return await _http_forms(url, settings)
    from deepcrawl.browser.fetcher import BrowserFetcher

    async with BrowserFetcher(settings, forms=True) as fetcher:
        page = await fetcher.fetch(url)
    if page.status >= 400:
        raise HTTPStatusError(url, page.status)
    if not page.is_html:
        raise NotHTMLError(url, page.content_type)
    return list(page.forms)


def judge_forms(forms: list[Form], settings: Settings) -> list[CriticVerdict]:
    """The critic's verdicts on ``forms`` (training it first if no cached model exists).

    Raises:
        ConfigError: the critic must be trained and formasaurus's corpus is missing.
    """
    return load_critic(settings.forms).judge(forms)


def verdict_rows(forms: list[Form], verdicts: list[CriticVerdict]) -> list[dict[str, Any]]:
    """One JSON-ready object per form: where it submits, and the critic's verdict."""
    return [
        {
            "action": form.action,
            "method": form.method,
            "locator": form.locator,
            "formless": form.formless,
            "fields": [f.name for f in form.fields if f.name and f.type != "hidden"],
            **verdict.as_dict(),
        }
        for form, verdict in zip(forms, verdicts, strict=True)
    ]
