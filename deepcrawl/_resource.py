"""One shape for the project's async resources: ``async with`` acquires, leaving releases.

Fetchers, the browser pool and the form search each own something that must be let go (a
browser, connections). They share one contract: entering calls :meth:`AsyncResource.open`,
leaving calls :meth:`AsyncResource.close` whatever happened inside the block, and entering the
same object twice is a programming error (a resource is not re-entrant) reported at once rather
than as a leaked browser later.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    from types import TracebackType

__all__ = ["AsyncResource"]


class AsyncResource:
    """Base of the async context managers that own a resource; override ``open``/``close``."""

    _entered: bool = False

    async def __aenter__(self) -> Self:
        if self._entered:
            raise RuntimeError(f"{type(self).__name__} cannot be entered twice")
        self._entered = True
        await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def open(self) -> None:
        """Acquire the resource (a browser, connections); a failure leaves nothing held."""

    async def close(self) -> None:
        """Release what :meth:`open` acquired; safe to call when ``open`` failed half-way."""
