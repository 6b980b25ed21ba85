"""robots.txt: fetched once per host, parsed with protego, consulted before every request.

Its ``Sitemap:`` lines are where the crawl looks for sitemaps first
(:mod:`deepcrawl.crawler.sitemaps`).

A missing robots.txt (4xx) allows everything; one that cannot be fetched (network error, 5xx)
is treated as disallowing everything for the time being, as Google does — a site in trouble
should not be crawled harder.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from protego import Protego

from deepcrawl.browser.scope import host_of
from deepcrawl.errors import FetchError

if TYPE_CHECKING:
    from deepcrawl.browser.base import Fetcher

__all__ = ["RobotsPolicy", "robots_url"]

logger = logging.getLogger(__name__)


class RobotsPolicy:
    """Answers "may I fetch this URL?" for the hosts of one crawl.

    Args:
        user_agent: the agent name matched against robots.txt groups.
        obey: when False every URL is allowed (the user's explicit choice).
    """

    def __init__(self, user_agent: str, *, obey: bool = True) -> None:
        self.user_agent = user_agent
        self.obey = obey
        self._rules: dict[str, Protego | None] = {}

    async def load(self, url: str, fetcher: Fetcher) -> None:
        """Fetch and parse the robots.txt of ``url``'s host, once per host."""
        origin = _origin(url)
        if not self.obey or origin in self._rules:
            return
        try:
            page = await fetcher.fetch(robots_url(url))
        except FetchError as exc:
            logger.warning("%s/robots.txt cannot be fetched (%s): nothing is crawled", origin, exc)
            self._rules[origin] = Protego.parse("User-agent: *\nDisallow: /\n")
            return
        if page.status >= 500:
            logger.warning("%s/robots.txt answers %d: nothing is crawled", origin, page.status)
            self._rules[origin] = Protego.parse("User-agent: *\nDisallow: /\n")
        elif page.status >= 400:
            logger.info("%s/robots.txt: none (HTTP %d), everything allowed", origin, page.status)
            self._rules[origin] = None
        else:
            logger.info("%s/robots.txt read (%d bytes)", origin, len(page.body))
            self._rules[origin] = Protego.parse(page.body)

    def allowed(self, url: str) -> bool:
        """Whether ``url`` may be fetched (its host's robots.txt must have been loaded)."""
        if not self.obey:
            return True
        rules = self._rules.get(_origin(url))
        return rules is None or bool(rules.can_fetch(url, self.user_agent))

    def sitemaps(self, url: str) -> list[str]:
        """The sitemaps the robots.txt of ``url``'s host names (its ``Sitemap:`` lines), in order;
        empty when it names none or was not loaded (``obey`` off)."""
        origin = _origin(url)
        rules = self._rules.get(origin)
        if rules is None:
            return []
        # the lines should be absolute URLs; a path is read as one on the robots.txt's host
        return list(dict.fromkeys(urljoin(origin + "/", s.strip()) for s in rules.sitemaps))

    def crawl_delay(self, url: str) -> float | None:
        """The Crawl-delay robots.txt asks of this agent on ``url``'s host, if any."""
        rules = self._rules.get(_origin(url))
        if not self.obey or rules is None:
            return None
        delay = rules.crawl_delay(self.user_agent)
        return None if delay is None else float(delay)


def robots_url(url: str) -> str:
    """The robots.txt URL of ``url``'s host, spelt as :class:`RobotsPolicy` asks for it."""
    return _origin(url) + "/robots.txt"


def _origin(url: str) -> str:
    # the host as scope sees it (punycode for an IDN): one robots.txt however the URL spells it
    return f"{urlsplit(url).scheme}://{host_of(url) or urlsplit(url).netloc}"
