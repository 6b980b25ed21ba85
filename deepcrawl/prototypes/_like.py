"""The prototype of a ``--like`` example over a plain URL list, and the URLs it holds.

The answer from the URLs alone: what ``deepcrawl prototypes --from-file URLS --like U
--offline`` prints. Without ``--offline`` the command checks this prototype by the pages'
layout as a crawl does (:mod:`deepcrawl.records.like`, a floor above this package: it fetches).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from deepcrawl.errors import InvalidURLError
from deepcrawl.prototypes._prototyper import Prototyper
from deepcrawl.urls import URLNormaliser

if TYPE_CHECKING:
    from collections.abc import Sequence

    from deepcrawl.prototypes._model import Prototype

__all__ = ["LikeMatch", "like_prototype"]


@dataclass(frozen=True)
class LikeMatch:
    """The example's prototype among those learnt from a URL list.

    Attributes:
        fitted: the prototyper fitted on the list.
        normal: the example's normal form; None when it is not a valid URL.
        prototype: the prototype the example falls in; None when none matches it.
        members: the listed URLs (as listed) that fall in the same prototype, in list order.
    """

    fitted: Prototyper
    normal: str | None
    prototype: Prototype | None
    members: tuple[str, ...]


def like_prototype(
    urls: Sequence[str], like: str, prototyper: Prototyper | None = None
) -> LikeMatch:
    """Prototype ``urls`` (with ``prototyper``, unfitted; None: the defaults) and find the
    prototype of the example URL ``like``.

    The example is not added to the list: its prototype is the one the list's URLs make.
    """
    fitted = (prototyper or Prototyper()).fit(urls)
    try:
        normal: str | None = URLNormaliser()(like)
    except InvalidURLError:
        normal = None
    pid = fitted.matcher_.match(normal) if normal is not None else None
    if pid is None:
        return LikeMatch(fitted, normal, None, ())
    owners = fitted.predict(urls)
    members = tuple(url for url, owner in zip(urls, owners, strict=True) if owner == pid)
    return LikeMatch(fitted, normal, fitted.prototype(pid), members)
