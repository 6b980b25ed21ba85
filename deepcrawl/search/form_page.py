"""The search form's page, live in the browser before each submission, at the least cost.

A form is submitted from its page as the browser shows it: its scripts ran, its hidden fields
hold what the server put there (a token), its cookies are in the browser. :class:`FormPage`
gives the form filler (:class:`~deepcrawl.search.filler.FormFiller`) that page, asking the
server for it only when no page it has will do:

1. the page the lease shows, when it holds the form: the form's page as the form finder left it
   (the first submission starts there: the finder's render was the load), or a result page
   showing the form again — not a copy of a document whose cookies the browser never got
   (:attr:`PageLease.foreign_session <deepcrawl.browser.lease.PageLease.foreign_session>`): its
   token may belong to another session;
2. else the form's page, answered from the bytes of an earlier load of it once two looks at it
   showed the same form (action, fields and values: no token that changes per load) — a POST
   form whose result pages do not show it again costs two loads of its page for a
   whole crawl, not one per query;
3. else the form's page from the server. A submission that fails forgets the held bytes
   (:meth:`FormPage.forget`): the next load asks the server, and a page that changed (a token
   that expired, a form that moved) is seen as it is now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from playwright.async_api import Error as PlaywrightError

from deepcrawl.browser.live_forms import discover_forms
from deepcrawl.browser.scope import strip_fragment
from deepcrawl.browser.settle import settle
from deepcrawl.errors import FetchError, FormError
from deepcrawl.forms.safety import ensure_submittable
from deepcrawl.page.groups import find_form
from deepcrawl.search.results import ChromeFilter

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from playwright.async_api import Page, Response

    from deepcrawl.browser.lease import PageLease
    from deepcrawl.browser.settle import Traffic
    from deepcrawl.forms.critic import CriticVerdict
    from deepcrawl.page.form import Form
    from deepcrawl.search.results import ResultPage
    from deepcrawl.settings import Settings

__all__ = ["FormPage"]


class FormPage:
    """Where one form is found live before each submission (see the module docstring).

    Args:
        form: the form, as the form finder found it (the first look at its page).
        verdict: the critic's verdict (every live form is checked against it again).
        settings: deepcrawl settings (``browser.page_timeout_s``, ``browser.settle_*``).
    """

    def __init__(self, form: Form, verdict: CriticVerdict, settings: Settings) -> None:
        self.form = form
        self.verdict = verdict
        self.settings = settings
        self.keys: set[tuple[str, str]] | None = None
        """Chrome keys of the links of the form's page (None until a look at it was read)."""
        self._looked_at = form
        self._held: tuple[int, str, bytes, bool] | None = None

    @property
    def held(self) -> bool:
        """Whether loads of the form's page are answered from the bytes of an earlier one."""
        return self._held is not None

    def forget(self) -> None:
        """Ask the server for the form's page at its next load (a submission failed)."""
        self._held = None

    async def open(
        self,
        lease: PageLease,
        traffic: Traffic,
        read: Callable[[Page, Traffic, tuple[int, int]], Awaitable[ResultPage]],
    ) -> Form:
        """The live form on the lease's page, loading the form's page when needed.

        Args:
            lease: the page borrowed for the submission.
            traffic: its traffic, being counted.
            read: the filler's snapshot of a page (the form page's links become :attr:`keys`).

        Raises:
            FetchError: the form's page answered an error status.
            FormError: the form is not on its page any more.
            UnsafeFormError: the live form is one the safety policy refuses.
            playwright.async_api.Error: the browser failed.
        """
        page = lease.page
        live = None
        if page.url != "about:blank" and not lease.foreign_session:
            first = self.keys is None
            if not first or strip_fragment(page.url) == strip_fragment(self.form.page_url):
                live = await self._find_live(page)
            if live is not None and first:  # the form finder's page: its links are the form's
                self.keys = _keys(await read(page, traffic, traffic.mark()))
        if live is None:
            live = await self._load(lease, traffic, read)
        if live is None:
            raise FormError(f"the form {self.form.locator} is not on {self.form.page_url} any more")
        ensure_submittable(live, self.verdict)
        return live

    async def _load(
        self,
        lease: PageLease,
        traffic: Traffic,
        read: Callable[[Page, Traffic, tuple[int, int]], Awaitable[ResultPage]],
    ) -> Form | None:
        """Load the form's page (from the held bytes when there are) and find the form on it."""
        page = lease.page
        mark = traffic.mark()
        timeout = self.settings.browser.page_timeout_s
        url = self.form.page_url
        if self._held is not None:
            lease.documents[url] = self._held
        try:
            response = await page.goto(url, wait_until="commit", timeout=timeout * 1000)
        finally:
            lease.documents.pop(url, None)
        await settle(page, traffic, timeout_s=timeout)
        if response is not None and response.status >= 400:
            raise FetchError(url, f"the form's page answered {response.status}")
        if self.keys is None:
            self.keys = _keys(await read(page, traffic, mark))
        live = await self._find_live(page)
        if live is not None and response is not None and self._held is None:
            await self._compare(live, response)
        return live

    async def _compare(self, live: Form, response: Response) -> None:
        """Hold the bytes of the form's page, just loaded from the server, when this look at it
        shows the form as the previous look did; otherwise this look is the one the next load
        is compared with."""
        seen, self._looked_at = self._looked_at, live
        if response.status != 200 or _sent(live) != _sent(seen):
            return
        try:
            body = await response.body()
        except PlaywrightError:
            return
        content_type = response.headers.get("content-type", "text/html")
        self._held = (200, content_type, body, False)

    async def _find_live(self, page: Page) -> Form | None:
        """The form on the page: the one of the chosen form's identity (its action, method and
        field names; never its name or id, which some sites mint on each load), its hidden
        values as this load set them."""
        try:
            forms = await discover_forms(page)
        except PlaywrightError:
            return None
        return find_form(forms, self.form)


def _keys(page: ResultPage) -> set[tuple[str, str]]:
    return {ChromeFilter.key(link) for link in page.links}


def _sent(form: Form) -> tuple[object, ...]:
    """What a submission of ``form`` sends before it is filled: its action, method, and each
    field's name, type and value (a token in a hidden field, a session id in the action)."""
    return (form.action, form.method, tuple((f.name, f.type, f.value) for f in form.fields))
