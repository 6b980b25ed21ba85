"""A crawl's inputs, checked before the browser starts, a query is sent or a row is written.

A bad input found late costs a browser start, setup queries sent to the site, and a site row
that may poison the store; found here it costs one line. :func:`check_inputs` checks, in order:

1. the start URL (:func:`check_url`): at most :data:`~deepcrawl.urls.MAX_START_URL_LENGTH`
   characters, http or https, a host; an internationalised host becomes punycode, so scope,
   robots.txt and the site's identity in the store all see one spelling; a user name and
   password in it become its origin's HTTP authentication, and leave the URL
   (:func:`~deepcrawl.browser.access.check_user_url`);
2. each ``--like`` URL: a path is resolved against the start URL; it must be a valid URL on the
   start URL's host (a crawl never leaves it); credentials in it as in 1;
3. the labels file: it exists and follows the schema (:func:`deepcrawl.prototypes.read_labels_file`
   names the file, the entry and the field), its ``like`` URLs as in 2;
4. the keyword file: it exists, is UTF-8 text and holds a keyword;
5. the database URL (:func:`~deepcrawl.storage.engine.check_database_url`): it parses, and a
   SQLite file's folder exists — a mistyped path is refused, not made — and may be written;
   the outputs (``--out``'s folder, ``--warc``'s file): no file is in the way of a folder to
   make, and the folder may be written — refused before the database is made, not after;
6. the site access (:class:`~deepcrawl.browser.access.SiteAccess`): the cookie file and the
   storage state are readable and well-formed, the headers and the proxy URL too;
7. the main text (``crawl.deliver_text``): trafilatura is installed;

then :func:`check_start_page` reads the site's robots.txt (the first request a host sees from a
crawl) and, when it allows, the start page and each ``like`` example, over plain HTTP: an
unreachable host, a start URL that is no HTML page and an example that answers with an error
status (a mistyped path: the crawl would spend its setup queries looking for a kind no page
has) are reported as such, not as "robots.txt forbids …", "the page has no form" or "needs
labels" after the browser started. The answers go to the crawl (:class:`StartPage`), which
takes them rather than ask the server again: its robots.txt rules are read from the first, its
form finder renders the second, its examples' words come from the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from http import HTTPStatus
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from deepcrawl.browser.scope import check_url, host_of
from deepcrawl.errors import ConfigError, FetchError, NetworkError
from deepcrawl.urls import MAX_START_URL_LENGTH

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import Any

    from deepcrawl.browser.base import Fetcher
    from deepcrawl.fetch.politeness import HostLimiter
    from deepcrawl.page.fetched import FetchedPage
    from deepcrawl.settings import Settings

__all__ = [
    "CrawlInputs",
    "StartPage",
    "check_inputs",
    "check_start_page",
    "check_url",
    "keep_field_values",
]


@dataclass(frozen=True, slots=True)
class CrawlInputs:
    """A crawl's inputs once checked.

    Attributes:
        start_url: the start URL, its host in ASCII (punycode), without credentials.
        settings: the settings given, with the credentials the URLs carried as their origins'
            HTTP authentication (:func:`~deepcrawl.browser.access.check_user_url`): the
            settings to crawl with, as none of the URLs holds them any more.
        like: the ``like`` URLs given, absolute, hosts in ASCII, without credentials
            (``crawl.like`` is checked, not included: the crawl adds it itself).
        labels: the labels file's entries (relative ``like`` URLs resolved), or None.
    """

    start_url: str
    settings: Settings
    like: tuple[str, ...] = ()
    labels: list[dict[str, Any]] | None = None


def _same_host(url: str, start_url: str, what: str) -> None:
    if host_of(url) != host_of(start_url):
        raise ConfigError(
            f"{what}: {url} is on {host_of(url)}, not on the start URL's host "
            f"{host_of(start_url)} (a crawl stays on its start URL's host)"
        )


def _check_like(example: str, start_url: str, max_length: int, what: str) -> str:
    url = check_url(urljoin(start_url, example.strip()), max_length=max_length, what=what)
    _same_host(url, start_url, what)
    return url


def _check_outputs(out: str | None, warc: Path | None) -> None:
    from pathlib import Path

    from deepcrawl._paths import folder_problem

    if out not in (None, "-") and (problem := folder_problem(Path(out))) is not None:
        raise ConfigError(f"--out {out}: {problem}")
    if warc is None:
        return
    if warc.is_dir():
        raise ConfigError(f"--warc {warc}: a folder, not a file")
    if (problem := folder_problem(warc.parent)) is not None:
        raise ConfigError(f"--warc {warc}: {problem}")


def check_inputs(
    start_url: str,
    settings: Settings,
    *,
    like: Sequence[str] = (),
    labels: Path | None = None,
    out: str | None = None,
    warc: Path | None = None,
) -> CrawlInputs:
    """Check everything a crawl is given before it starts (the module docstring's list):
    ``out`` is the folder the pages go to (``-``: stdout), ``warc`` the WARC file.

    Returns:
        The checked inputs, URLs in the form the crawl uses.

    Raises:
        InvalidURLError: a bad start or ``--like`` URL.
        ConfigError: a ``--like`` URL on another host, a missing or malformed labels file, a
            missing, empty or binary keyword file, the main text asked for without
            trafilatura; each message is one line naming the culprit.
        AccessError: an unusable cookie file, storage state, header or proxy (named).
        StorageError: a malformed database URL, or a SQLite file in a folder that does not
            exist or may not be written.
        ConfigError: ``out`` or ``warc`` lies under a file or in a folder that may not be
            written, or ``warc`` is a folder.
    """
    from deepcrawl.browser.access import SiteAccess, check_user_url, with_url_credentials
    from deepcrawl.keywords import load_word_list
    from deepcrawl.prototypes import read_labels_file
    from deepcrawl.storage.engine import check_database_url

    limit = MAX_START_URL_LENGTH
    start, settings = check_user_url(settings, start_url, max_length=limit, what="start URL")
    settings = with_url_credentials(settings, [*like, *settings.crawl.like])
    likes = tuple(_check_like(example, start, limit, "--like") for example in like)
    for example in settings.crawl.like:  # the crawl adds them itself
        _check_like(example, start, limit, "setting crawl.like")
    entries = None
    if labels is not None:
        entries = read_labels_file(labels, base=start)
        for i, entry in enumerate(entries, 1):
            if "like" in entry:
                where = f"labels file {labels}, entry {i}, field 'like'"
                entry["like"] = _check_like(entry["like"], start, limit, where)
    if settings.keywords.keywords_file is not None:
        load_word_list(settings.keywords.keywords_file)
    check_database_url(settings.storage.url)
    _check_outputs(out, warc)
    SiteAccess.from_settings(settings)
    if settings.crawl.deliver_text:
        from deepcrawl.export import require_text

        require_text()
    return CrawlInputs(start_url=start, like=likes, labels=entries, settings=settings)


@dataclass(frozen=True, slots=True)
class StartPage:
    """What :func:`check_start_page` fetched, for the crawl to use rather than fetch again.

    Attributes:
        robots: the answer to the start URL's host's robots.txt (None: not asked, as
            ``politeness.obey_robots`` is off, or no answer came).
        page: the answer to the start URL (None: robots.txt forbids it, or no answer came).
        requests: the requests the check sent (counted by its gate): the crawl's first.
        examples: the answers to the ``like`` examples, each with a success status (one
            refused by robots.txt or that timed out is not held: the crawl reports it).
    """

    robots: FetchedPage | None = None
    page: FetchedPage | None = None
    requests: int = 0
    examples: tuple[FetchedPage, ...] = field(default=())

    @property
    def pages(self) -> list[FetchedPage]:
        """The answers held, robots.txt first."""
        return [page for page in (self.robots, self.page) if page is not None]


async def check_start_page(
    start_url: str,
    settings: Settings,
    *,
    like: Sequence[str] = (),
    limiter: HostLimiter | None = None,
) -> StartPage:
    """Read the host's robots.txt, then — when it allows — the start page and the ``like``
    examples (``crawl.like``'s and ``like``, absolute as :func:`check_inputs` returns them),
    over plain HTTP (GETs, redirects followed, the host's rate kept between them: by
    ``limiter``, when the process shares one between its sites, else by one of the check's own).

    robots.txt comes first, as from any crawler: a host sees no request before it.

    Returns:
        The answers, for the crawl to take (:class:`StartPage`).

    Raises:
        NetworkError: the host cannot be reached (the message says so, with the reason).
        ConfigError: the start URL answers with something else than an HTML page, or an
            example answers with an error status (the message names it and the status).
    """
    from deepcrawl.browser.access import with_start_origin
    from deepcrawl.browser.http import HttpFetcher
    from deepcrawl.fetch.gate import Count, Gate
    from deepcrawl.fetch.polite import same_host
    from deepcrawl.fetch.politeness import HostLimiter as OwnLimiter
    from deepcrawl.fetch.robots import RobotsPolicy, robots_url

    host = host_of(start_url)
    settings = with_start_origin(settings, start_url)
    politeness = settings.politeness
    rules = RobotsPolicy(settings.http.user_agent, obey=politeness.obey_robots)
    sent = Count()
    limiter = limiter or OwnLimiter(politeness)
    gate = Gate(politeness, rules, limiter, same_host(start_url), tally=sent)
    robots: FetchedPage | None = None
    page: FetchedPage | None = None
    wanted = {urljoin(start_url, e): "setting crawl.like" for e in settings.crawl.like}
    wanted |= dict.fromkeys(like, "--like")
    users = {start_url, *wanted}
    async with HttpFetcher(settings, (host,), forms=False) as fetcher:
        polite = gate.wrap(fetcher, vouched=users.__contains__)  # the user's URLs
        try:
            if rules.obey:
                robots = await polite.fetch(robots_url(start_url))
            await gate.open(start_url, fetcher, held=[robots] if robots else [])
            page = await polite.fetch(start_url)
        except NetworkError as exc:
            reason = str(exc).removeprefix(f"{exc.url}: ")
            raise NetworkError(start_url, f"cannot reach {host}: {reason}") from exc
        except FetchError:  # a timeout, robots.txt forbids it, a redirect out of scope …:
            return StartPage(robots, page, sent.requests)  # the crawl reports those itself
        if page.status < 400 and not page.is_html:
            kind = page.content_type or "an unknown type"
            raise ConfigError(
                f"the start URL {start_url} is not an HTML page ({kind}): give the URL of the "
                "page with the site's search form"
            )
        examples: list[FetchedPage] = []
        for url, what in wanted.items():
            if (example := await _fetch_example(polite, url, what)) is not None:
                examples.append(example)
    return StartPage(robots, page, sent.requests, tuple(examples))


async def _fetch_example(polite: Fetcher, url: str, what: str) -> FetchedPage | None:
    """The answer to one ``like`` example; None when the gate refused it or it timed out (the
    crawl goes on without its words and says so).

    Raises:
        ConfigError: it answers with an error status, or its host cannot be reached.
    """
    try:
        page = await polite.fetch(url)
    except NetworkError as exc:
        raise ConfigError(f"{what} {url} cannot be fetched: {exc}") from exc
    except FetchError:
        return None
    if page.status >= 400:
        try:
            status = f"HTTP {page.status} {HTTPStatus(page.status).phrase}"
        except ValueError:
            status = f"HTTP {page.status}"
        raise ConfigError(
            f"{what} {url} answers {status}: give the URL of a page of the kind wanted"
        )
    return page


def keep_field_values(settings: Settings, stored: Mapping[str, str] | None) -> Settings:
    """The settings a resumed crawl queries with: the field values (``forms.fields``) its stored
    queries were sent with, when none are given.

    The keyword manager's statistics hold only for queries of one shape: a crawl whose queries
    were sent with ``postcode=AB1`` cannot go on with another postcode.

    Args:
        settings: the settings given.
        stored: the field values of the stored crawl's latest query (None: nothing stored).

    Raises:
        ConfigError: other field values are given than the stored queries were sent with.
    """
    given = dict(settings.forms.fields)
    if stored is None or not (given or stored):
        return settings
    if not given:
        return settings.with_overrides(forms={"fields": dict(stored)})

    def folded(values: Mapping[str, str]) -> dict[str, str]:
        # an option may be given by its text ("History") and stored by its value ("history")
        return {name: value.strip().casefold() for name, value in values.items()}

    if folded(given) != folded(stored):
        shown = " ".join(f"--field {k}={v}" for k, v in stored.items()) or "no --field"
        raise ConfigError(
            f"this site's stored crawl sent its queries with {shown}; resume it with the same "
            "values (or none), or crawl into another database (--db) with new ones"
        )
    return settings
