"""The terms of the text blocks a search shows beside its results: the entries' source of words.

A search shows, around each result, the text it matched (a row's searchable columns, a hit's
title and snippet): text it indexes, whose words are good queries. Beside it, the page's frame
(a footer, a sidebar) and echoes of the query ("12 results for …") hold the word too and are no
entries; :class:`EntryBlocks` tells them apart across queries (see :meth:`EntryBlocks.learn`).
"""

from __future__ import annotations

import re
from collections import Counter, OrderedDict
from typing import TYPE_CHECKING

from deepcrawl.keywords.text import record_terms

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Sequence

    from deepcrawl.keywords.terms import SourceTerms

__all__ = ["EntryBlocks"]

#: Numbers in a result-page block (a count beside the echoed query), blanked to compare echoes.
_DIGITS = re.compile(r"\d+")
#: Entry blocks counted lately whose count can be taken back once they show as frame.
_COUNTED_KEPT = 2000


class EntryBlocks:
    """The entry blocks counted into ``terms``, and what was learnt to be no entry.

    Args:
        terms: where an entry's terms are counted (the word supply's entries source).
        min_length: shorter words are not terms.
        usable: the terms a query may use of a block's (stop words only where the site
            accepts them).
    """

    def __init__(
        self,
        terms: SourceTerms,
        min_length: int,
        *,
        usable: Callable[[frozenset[str]], frozenset[str]],
    ) -> None:
        self.terms = terms
        self.min_length = min_length
        self.usable = usable
        # result-page blocks with the query blanked: those seen (hashed: a large crawl sees
        # millions)
        self._echoes: set[int] = set()
        # the latest query's counted blocks, and those with a number waiting: by echo, the
        # block (numbers blanked) and its terms
        self._latest: dict[str, tuple[str, frozenset[str]]] = {}
        self._held: dict[str, tuple[str, frozenset[str]]] = {}
        self._frame: set[int] = set()  # blocks of the page's frame, numbers blanked (hashed)
        self._counted: OrderedDict[int, frozenset[str]] = OrderedDict()  # the latest counted

    def learn(self, query: str, blocks: Sequence[str], *, empty: bool = False) -> int:
        """Learn terms from the text a query's result pages showed (short text blocks).

        Only the blocks holding the query's words count: the search matched them there, so
        they are text it indexes — a row's searchable columns, a hit's title and snippet —
        unlike the page's frame or a record's codes. A block that holds the query only by
        echoing it ("12 results for …") is frame too: blanked of the query and its numbers, it
        reads the same for the next query that shows its word, and its count is taken back
        then; a block with a number, the likeliest echo, is counted only once that next query
        did not show it. A block counted once is not counted again.

        The page's frame is learnt where it shows alone: every block of an ``empty`` answer
        (the search said nothing matched), and a block on two pages of one list (their entries
        are other records) — a footer, a sidebar. It is not counted from then on, and a count
        it got among the latest blocks counted is taken back.

        A query whose answer was ``empty`` (or whose latest answer was: any block holding its
        word echoes it) shows no entries, and teaches nothing.

        Returns:
            How many blocks were counted.
        """
        words = record_terms(query, min_length=1)
        shown = Counter(_DIGITS.sub("#", block.casefold()) for block in blocks)
        self._learn_frame(norm for norm, times in shown.items() if empty or times > 1)
        if not words or empty:
            return 0
        folded = query.casefold()
        matched: dict[str, tuple[str, frozenset[str]]] = {}  # the block, query blanked -> …
        for block in dict.fromkeys(blocks):
            norm = _DIGITS.sub("#", block.casefold())
            found = record_terms(block, min_length=self.min_length)
            if words <= found and hash(norm) not in self._frame:
                echo = _DIGITS.sub("#", block.casefold().replace(folded, "\x00"))
                matched.setdefault(echo, (norm, found))
        if not matched:  # no evidence either way: the latest blocks wait for a query that has
            return 0
        for echo in self._latest.keys() & matched.keys():  # an echo of the query: take it back
            self._take_back(self._latest[echo][0])
        for echo, (norm, found) in self._held.items():  # not shown again: an entry after all
            if echo not in matched and hash(norm) not in self._frame:
                self._count(norm, found)
        fresh = {
            echo: (norm, self.usable(found))
            for echo, (norm, found) in matched.items()
            if hash(echo) not in self._echoes
        }
        self._echoes |= {hash(echo) for echo in matched}
        # a count beside the query ("12 results for …") is the likeliest echo: it waits
        self._held = {echo: entry for echo, entry in fresh.items() if "#" in echo}
        self._latest = {echo: entry for echo, entry in fresh.items() if "#" not in echo}
        for norm, found in self._latest.values():
            self._count(norm, found)
        return len(self._latest)

    def _count(self, norm: str, found: frozenset[str]) -> None:
        """Count one entry block's terms, remembered a while to be taken back."""
        self.terms.add(found)
        self._counted[hash(norm)] = found
        if len(self._counted) > _COUNTED_KEPT:
            self._counted.popitem(last=False)

    def _take_back(self, norm: str) -> None:
        """Take back a block's count, if it is among those remembered."""
        if (found := self._counted.pop(hash(norm), None)) is not None:
            self.terms.remove(found)

    def _learn_frame(self, norms: Iterable[str]) -> None:
        """Blocks (numbers blanked) that are the page's frame: never counted, counts taken back."""
        for norm in norms:
            self._frame.add(hash(norm))
            self._take_back(norm)
