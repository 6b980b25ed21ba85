"""Storage: the crawl's state in a SQL database (SQLite by default, PostgreSQL to scale out).

The only package that speaks SQL. The tables are sqlmodel models in :mod:`deepcrawl.storage.tables`;
the pages, forms, queries, prototypes and labels are read and written through :class:`Repository`;
beside it, the frontier (:mod:`deepcrawl.storage.frontier`), the crawl's own state
(:mod:`deepcrawl.storage.state`), the coordination of many processes
(:mod:`deepcrawl.storage.coordination`, :mod:`deepcrawl.storage.claims`) and the shared politeness
clock (:mod:`deepcrawl.storage.hosts`). Every database error leaves as
:class:`~deepcrawl.errors.StorageError` through one guard (:mod:`deepcrawl.storage.guard`).
"""

from deepcrawl.storage.engine import (
    SCHEMA_VERSION,
    Engine,
    check_database_url,
    is_shared,
    open_engine,
    safe_url,
)
from deepcrawl.storage.events import EventStore
from deepcrawl.storage.repository import PageWrite, Repository
from deepcrawl.storage.tables import (
    FormRead,
    LabelRead,
    LinkBase,
    PageRead,
    PrototypeBase,
    PrototypeRead,
    QueryBase,
    QueryRead,
    SiteRead,
    SiteSummary,
)

__all__ = [
    "SCHEMA_VERSION",
    "Engine",
    "EventStore",
    "FormRead",
    "LabelRead",
    "LinkBase",
    "PageRead",
    "PageWrite",
    "PrototypeBase",
    "PrototypeRead",
    "QueryBase",
    "QueryRead",
    "Repository",
    "SiteRead",
    "SiteSummary",
    "check_database_url",
    "is_shared",
    "open_engine",
    "safe_url",
]
