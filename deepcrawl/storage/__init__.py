"""Storage: the crawl's state in a SQL database (SQLite by default, PostgreSQL to scale out).

The tables are sqlmodel models in :mod:`deepcrawl.storage.tables`; everything else reads and
writes through :class:`Repository`.
"""

from deepcrawl.storage.engine import SCHEMA_VERSION, open_engine, safe_url
from deepcrawl.storage.repository import Repository
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
    "FormRead",
    "LabelRead",
    "LinkBase",
    "PageRead",
    "PrototypeBase",
    "PrototypeRead",
    "QueryBase",
    "QueryRead",
    "Repository",
    "SiteRead",
    "SiteSummary",
    "open_engine",
    "safe_url",
]
