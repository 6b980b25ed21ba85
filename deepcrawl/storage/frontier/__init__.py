"""The frontier: its contract and value types (:mod:`.base`), and its backends side by side —
:class:`SqlFrontier` in the crawl's database (:mod:`.sql`), :class:`MemoryFrontier` in the
process (:mod:`.memory`)."""

from deepcrawl.storage.frontier.base import (
    SETUP_SOURCE,
    Frontier,
    FrontierCounts,
    Lease,
    NewURL,
    query_source,
    source_query,
)
from deepcrawl.storage.frontier.memory import MemoryFrontier
from deepcrawl.storage.frontier.sql import SqlFrontier

__all__ = [
    "SETUP_SOURCE",
    "Frontier",
    "FrontierCounts",
    "Lease",
    "MemoryFrontier",
    "NewURL",
    "SqlFrontier",
    "query_source",
    "source_query",
]
