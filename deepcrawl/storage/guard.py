"""The storage layer's one translation of database errors: SQLAlchemy's, raised inside a guarded
block, leave it as :class:`~deepcrawl.errors.StorageError` naming the operation and the database
(its password masked)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

from sqlalchemy.exc import SQLAlchemyError

from deepcrawl.errors import StorageError
from deepcrawl.storage.engine import safe_url

if TYPE_CHECKING:
    from types import TracebackType

    from sqlalchemy.engine import Engine

__all__ = ["StorageGuard"]


class StorageGuard:
    """Translate SQLAlchemy errors into StorageError naming the operation and database.

    Args:
        operation: what was being done (``lease URLs from the frontier``).
        where: the database as named in the message, or the engine to name it from once an
            error needs it (a crawl opens a guard for every statement it runs: rendering and
            masking the URL each time cost more than a simple query).
    """

    def __init__(self, operation: str, where: str | Engine) -> None:
        self.operation = operation
        self._where = where

    @property
    def where(self) -> str:
        """The database, named with its password masked."""
        if not isinstance(self._where, str):
            self._where = safe_url(str(self._where.url))
        return self._where

    @classmethod
    def of(cls, engine: Engine, operation: str) -> Self:
        """A guard for ``operation`` on ``engine``'s database (named with its password masked).

        Usage: ``with StorageGuard.of(engine, "lease URLs from the frontier"): ...``
        """
        return cls(operation, engine)

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if isinstance(exc, SQLAlchemyError):
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise StorageError(f"cannot {self.operation} in {self.where}: {reason}") from exc
