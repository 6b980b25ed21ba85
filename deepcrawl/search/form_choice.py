"""Which form of a page is its search: render the page, judge its forms, pick one.

The first step of the "Deep Web Access" role (Hernández et al.), before any query is sent:

* :func:`render_forms` renders a page in Chromium (from the bytes plain HTTP just fetched, where
  it has them) and reads its forms in page order;
* :func:`choose_search_form` runs the critic over them and picks the one to query: the form the
  user named (``forms.form``: a number, a name or a CSS selector), else the critic's best;
* :func:`find_search_form` is that choice's form and verdict, which
  :class:`~deepcrawl.search.form_search.FormSearch` then queries.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser.render import render_page
from deepcrawl.errors import ConfigError, FormError, HTTPStatusError
from deepcrawl.forms.fields import parse_form_choice, pick_form, user_verdict
from deepcrawl.forms.store import load_critic

if TYPE_CHECKING:
    from collections.abc import Sequence

    from playwright.async_api import Page

    from deepcrawl.browser.pool import BrowserPool
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.page.form import Form
    from deepcrawl.settings import Settings

__all__ = ["FormChoice", "choose_search_form", "find_search_form", "render_forms"]


async def find_search_form(
    url: str, settings: Settings, pool: BrowserPool, *, document: FetchedPage | None = None
) -> tuple[Form, CriticVerdict]:
    """The searchable form of the page at ``url``: the one ``forms.form`` picks, else the one
    the critic likes best.

    ``document`` is the page as plain HTTP fetched it a moment ago (the crawl's input check):
    the browser renders those bytes rather than ask the server again (see
    :func:`render_forms`).

    Raises:
        FetchError: the page cannot be fetched.
        FormError: the page has no form the critic accepts (the message says why).
        ConfigError: ``forms.form`` picks no form of the page (the message lists them).
        UnsafeFormError: the safety policy refuses the form ``forms.form`` picks.
    """
    choice = await choose_search_form(url, settings, pool, document=document)
    return choice.form, choice.verdict


@dataclass(frozen=True, slots=True)
class FormChoice:
    """The forms of a page, the critic's verdicts on them, and the one to query.

    Attributes:
        forms: the page's forms, in the order ``deepcrawl forms URL`` numbers them.
        verdicts: the critic's verdict on each.
        index: the position (from 0) of the form to query.
        by_user: True when ``forms.form`` picked it, False when the critic did.
    """

    forms: list[Form]
    verdicts: list[CriticVerdict]
    index: int
    by_user: bool

    @property
    def form(self) -> Form:
        """The form to query."""
        return self.forms[self.index]

    @property
    def verdict(self) -> CriticVerdict:
        """The verdict to query it by (a form the user picked is accepted: see
        :func:`~deepcrawl.forms.fields.user_verdict`)."""
        return self.verdicts[self.index]


async def choose_search_form(
    url: str, settings: Settings, pool: BrowserPool, *, document: FetchedPage | None = None
) -> FormChoice:
    """Render the page at ``url`` (from ``document`` when it is its HTML answer: see
    :func:`render_forms`), judge its forms, and pick the one to query.

    Raises:
        FetchError: the page cannot be fetched.
        FormError: the user picked no form and the critic accepts none (the message says why).
        ConfigError: ``forms.form`` picks no form of the page (the message lists them).
        UnsafeFormError: the safety policy refuses the form ``forms.form`` picks.
    """
    forms, selected = await render_forms(url, settings, pool, document=document)
    choice = parse_form_choice(settings.forms.form)
    if not forms and choice is None:
        raise FormError(f"no search form on {url}: the page has no form")
    verdicts = load_critic(settings.forms).judge(forms)
    refused = settings.forms.refused_words
    index = pick_form(forms, verdicts, choice, selected=selected, refused_words=refused)
    if index is None:
        why = "; ".join(
            f"{f.locator or f.action}: {', '.join(v.reasons)}"
            for f, v in zip(forms, verdicts, strict=True)
        )
        raise FormError(f"no searchable form on {url} ({why})")
    if choice is not None:
        verdicts[index] = user_verdict(forms[index], verdicts[index], refused)
    return FormChoice(forms, verdicts, index, by_user=choice is not None)


async def render_forms(
    url: str, settings: Settings, pool: BrowserPool, *, document: FetchedPage | None = None
) -> tuple[list[Form], list[bool] | None]:
    """The forms of the page at ``url`` rendered in Chromium, in page order, and — when
    ``forms.form`` is a CSS selector — whether it selects each (None otherwise).

    ``document``, when it is the HTML answer of ``url`` itself (status 200, no redirect), is
    what the browser renders, without a request (:meth:`PageLease.hold
    <deepcrawl.browser.lease.PageLease.hold>`). The page stays in the pool as rendered: the
    form filler's first submission may start from it (:class:`FormFiller`).

    Raises:
        FetchError: the page cannot be fetched (or answered with an error status).
        ConfigError: ``forms.form`` is not a valid CSS selector.
    """
    choice = parse_form_choice(settings.forms.form)
    pool.scope.admit(url)
    selected: list[bool] | None = None
    async with pool.page() as lease:
        lease.hold(url, document)
        try:
            page = await render_page(lease, url, forms=True)
        finally:
            lease.documents.clear()
        if isinstance(choice, str) and page.forms:
            selected = await _selected(lease.page, choice, page.forms)
    if page.status >= 400:
        raise HTTPStatusError(url, page.status)
    return list(page.forms), selected


_SELECTED_JS = """([selector, locators]) => {
  let picked;
  try { picked = Array.from(document.querySelectorAll(selector)); } catch (e) { return null; }
  return locators.map((loc) => {
    let el = null;
    try { el = loc ? document.querySelector(loc) : null; } catch (e) { return false; }
    return !!el && picked.some((p) => p === el || p.contains(el));
  });
}"""


async def _selected(page: Page, selector: str, forms: Sequence[Form]) -> list[bool]:
    """Whether ``selector`` selects each form (or an element holding it) on the live page.

    Raises:
        ConfigError: ``selector`` is not a valid CSS selector.
    """
    try:
        found = await page.evaluate(_SELECTED_JS, [selector, [f.locator for f in forms]])
    except PlaywrightError as exc:
        raise ConfigError(f"--form {selector!r}: cannot match it on the page ({exc})") from exc
    if found is None:
        raise ConfigError(f"--form {selector!r} is not a valid CSS selector")
    return [bool(hit) for hit in found]
