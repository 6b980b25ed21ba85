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
    """Translate SQLAlchemy errors into StorageError naming the operation and database."""

    def __init__(self, operation: str, where: str) -> None:
        self.operation = operation
        self.where = where

    @classmethod
    def of(cls, engine: Engine, operation: str) -> Self:
        """A guard for ``operation`` on ``engine``'s database (named with its password masked).

        Usage: ``with StorageGuard.of(engine, "lease URLs from the frontier"): ...``
        """
        return cls(operation, safe_url(str(engine.url)))

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
