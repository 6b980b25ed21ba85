"""The forms of one page and the critic's verdicts on them (what ``deepcrawl forms`` shows).

:func:`page_forms` fetches a page — rendered in Chromium by default, so that forms built by
scripts are seen; or fetched over plain HTTP and parsed statically — and returns its forms.
:func:`judge_forms` runs the (cached) critic over them and builds the JSON rows the CLI prints.
:func:`inspect_forms` does both and says which form a crawl would query — the critic's choice,
or the user's ``--form`` — and whether the ``--field`` values fit it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import httpx

from deepcrawl.errors import FetchTimeoutError, HTTPStatusError, NetworkError, NotHTMLError
from deepcrawl.forms.fields import (
    check_field_values,
    missing_required,
    parse_form_choice,
    pick_form,
    user_verdict,
)
from deepcrawl.forms.store import load_critic
from deepcrawl.page.static_forms import parse_forms

if TYPE_CHECKING:
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.form import Form, FormField
    from deepcrawl.settings import Settings

__all__ = ["PageForms", "inspect_forms", "judge_forms", "page_forms", "verdict_rows"]


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
        InvalidURLError: ``url`` fails :func:`~deepcrawl.browser.scope.check_url`.
        FetchError: the page could not be fetched (or answered with an error status).
        BrowserError: Chromium could not be started.
    """
    from deepcrawl.browser.access import check_user_url

    url, settings = check_user_url(settings, url)  # as every command does
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
            "group": form.group,
            "formless": form.formless,
            "fields": [f.name for f in form.fields if f.name and f.type != "hidden"],
            **verdict.as_dict(),
        }
        for form, verdict in zip(forms, verdicts, strict=True)
    ]


@dataclass(slots=True)
class PageForms:
    """A page's forms, the critic's verdicts, and the form a crawl of the page would query.

    Attributes:
        forms: the forms in page order (``--form N`` counts them from 1).
        verdicts: the critic's verdict on each (a form the user picked shows as accepted).
        chosen: the position (from 0) of the form a crawl would query; None when the critic
            accepts none and the user picked none.
        by_user: whether ``forms.form`` picked it (else the critic did: the best score).
        critic: the position of the form the critic would pick (the best-scored accepted
            one), whatever the user picked; None when it accepts none.
        fields: the ``forms.fields`` values as the chosen form takes them.
        missing: required fields of the chosen form that have no value.
    """

    forms: list[Form]
    verdicts: list[CriticVerdict]
    chosen: int | None
    by_user: bool
    critic: int | None = None
    fields: dict[str, str] = field(default_factory=dict)
    missing: list[FormField] = field(default_factory=list)

    def rows(self) -> list[dict[str, Any]]:
        """:func:`verdict_rows`, each with its ``number`` (what ``--form`` takes) and whether
        it is the ``chosen`` one."""
        rows = verdict_rows(self.forms, self.verdicts)
        for i, row in enumerate(rows):
            row["number"] = i + 1
            row["chosen"] = i == self.chosen
        return rows


async def inspect_forms(url: str, settings: Settings, *, browser: bool = True) -> PageForms:
    """The forms of the page at ``url``, judged, with the one a crawl would query.

    ``forms.form`` picks the form (a CSS selector needs the browser: without it, only a form's
    exact locator matches); ``forms.fields`` is checked against the chosen form.

    Raises:
        InvalidURLError: ``url`` fails :func:`~deepcrawl.browser.scope.check_url`.
        FetchError: the page could not be fetched.
        BrowserError: Chromium could not be started.
        ConfigError: ``forms.form`` picks no form, or a ``forms.fields`` value does not fit
            the chosen form (the message lists what exists).
        UnsafeFormError: the safety policy refuses the form ``forms.form`` picks.
    """
    from deepcrawl.browser.access import check_user_url

    url, settings = check_user_url(settings, url)  # as every command does
    selected: list[bool] | None = None
    if browser:
        from deepcrawl.browser.pool import BrowserPool
        from deepcrawl.search.form_choice import render_forms

        async with BrowserPool(settings) as pool:
            forms, selected = await render_forms(url, settings, pool)
    else:
        forms = await _http_forms(url, settings)
    verdicts = judge_forms(forms, settings)
    choice = parse_form_choice(settings.forms.form)
    refused = settings.forms.refused_words
    index = pick_form(forms, verdicts, choice, selected=selected, refused_words=refused)
    critic = pick_form(forms, verdicts, None)
    found = PageForms(forms, verdicts, index, by_user=choice is not None, critic=critic)
    if index is None:
        return found
    verdict = verdicts[index] = user_verdict(forms[index], verdicts[index], refused)
    found.fields = check_field_values(
        forms[index], settings.forms.fields, query_field=verdict.query_field
    )
    found.missing = missing_required(forms[index], found.fields, query_field=verdict.query_field)
    return found
