"""Why a query failed, told apart: the cause a failed :class:`~deepcrawl.search.results
.QueryResult` carries, whichever path (browser, URL template, data request, replay) sent it.

A query that brings nothing says so in one of a few ways, and each asks something else of its
user: a search slower than the timeout (raise ``browser.page_timeout_s``), a form whose action
or result pages lie outside the crawl's scope or robots.txt (widen the scope, or the form is
not the site's), a server that throttles the crawler past its retries (slow down) or refuses
it (401, 403: the site access), an error page, or a list with no results (other words).
:data:`QUERY_CAUSES` names them; the crawl counts its queries by cause and names them in its
stop line and in ``stats.json``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from deepcrawl.errors import BlockedError, FetchTimeoutError, HTTPStatusError, UnsafeFormError

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["QUERY_CAUSES", "QueryCause", "cause_of_error", "cause_of_status", "describe_causes"]

QueryCause = Literal[
    "timeout", "out of scope", "robots.txt", "throttled", "blocked", "error", "no results"
]
#: Every cause, in the order a stop line names them.
QUERY_CAUSES: tuple[QueryCause, ...] = (
    "timeout",
    "out of scope",
    "robots.txt",
    "throttled",
    "blocked",
    "error",
    "no results",
)

#: Statuses of a server that says it is overloaded (``fetch.politeness.HOST_WAITS``: the host
#: was paused and the request retried before the query failed).
_THROTTLED = frozenset({429, 503})
#: Statuses of a server that refuses the crawler: authentication, a ban, a legal block.
_BLOCKED = frozenset({401, 403, 451})


def cause_of_status(status: int) -> QueryCause:
    """The cause of a query whose page answered ``status`` and showed no results."""
    if status in _THROTTLED:
        return "throttled"
    if status in _BLOCKED:
        return "blocked"
    return "error"


def cause_of_error(exc: Exception) -> QueryCause:
    """The cause of a query that failed with ``exc``.

    A refusal before anything was sent (:class:`~deepcrawl.errors.BlockedError`) says which
    rule refused it in its reason — the gate's and the browser's scope and robots.txt steps —
    and a refusal by the safety rule, or a form it refuses, is ``blocked``.
    """
    if isinstance(exc, FetchTimeoutError):
        return "timeout"
    if isinstance(exc, HTTPStatusError):
        return cause_of_status(exc.status)
    if isinstance(exc, BlockedError):
        reason = str(exc)
        if "robots.txt" in reason:
            return "robots.txt"
        if "scope" in reason:
            return "out of scope"
        return "blocked"
    if isinstance(exc, UnsafeFormError):
        return "blocked"
    return "error"


#: How a stop line names the queries of each cause.
_TOLD: dict[str, str] = {
    "timeout": "timed out",
    "out of scope": "out of the crawl's scope",
    "robots.txt": "disallowed by robots.txt",
    "throttled": "throttled past their retries",
    "blocked": "blocked",
    "error": "error pages",
    "no results": "no results",
}


def describe_causes(counts: Mapping[str, int]) -> str:
    """The queries counted by cause, as a stop line names them ("2 timed out, 1 no results"),
    in the order of :data:`QUERY_CAUSES`; empty when none is counted."""
    return ", ".join(
        f"{counts[cause]} {_TOLD[cause]}" for cause in QUERY_CAUSES if counts.get(cause, 0) > 0
    )
