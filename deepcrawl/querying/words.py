"""The keyword manager: which word to submit next.

Hernández et al. ("The Keyword Manager") give it the job of supplying the form filler with
keywords likely to be in the site's database. It holds the words and their statistics and asks
its policy (:mod:`deepcrawl.keywords.policy`) for the next one; what the queries brought, and
every decision to leave a source of words or to stop, are the querying's
(:class:`~deepcrawl.querying.ledger.Ledger`, :mod:`~deepcrawl.querying.schedule`,
:mod:`~deepcrawl.querying.stops`), which it reads and never writes.

Words come from *sources* (:class:`~deepcrawl.keywords.outcome.WordSource`), tried in order: the
user's words (``seeds`` and ``--keywords FILE``), all of them, first; then the xCrawl queries of
the ``--like`` pages (:meth:`KeywordManager.add_examples`); then, once, where the site refuses
stop words, the record pages' template words together (:meth:`KeywordManager.frame_query`);
then, chosen by the policy, the words of the result links' texts, of the text the result pages
show around the query word (:meth:`KeywordManager.learn_entries`: a search evidently indexes the
text it matched) and of the fetched record pages (:meth:`KeywordManager.learn_record`); the
language's frequent words last. A source the schedule left (:attr:`SourceRecord.left
<deepcrawl.querying.ledger.SourceRecord.left>`) gives no more words, the user's excepted.

Record ids are whatever identifies a record across queries — the canonical URL of its detail
page, say. Texts are what the crawl knows of a record: its result snippet, or its page once
downloaded; the greedy policy learns its terms from them.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from deepcrawl.keywords.outcome import LEARNT, WordSource
from deepcrawl.keywords.policy import FrequencyPolicy, GreedyPolicy, QueryPolicy, RandomPolicy
from deepcrawl.keywords.samples import seed_queries_from_samples
from deepcrawl.keywords.sources import frequent_words, load_word_list, stopwords
from deepcrawl.keywords.terms import PageTerms, ResultTerms, SourceTerms
from deepcrawl.keywords.text import record_terms
from deepcrawl.querying.entries import EntryBlocks
from deepcrawl.settings import QuerySettings

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

    from deepcrawl.querying.view import LedgerView as Ledger
    from deepcrawl.settings import KeywordSettings

__all__ = ["KeywordManager", "expected_pages", "make_policy"]


def make_policy(settings: KeywordSettings) -> QueryPolicy:
    """The policy named by ``settings.policy``, configured from the same settings."""
    match settings.policy:
        case "greedy":
            return GreedyPolicy(page_cost=settings.page_cost)
        case "random":
            return RandomPolicy(seed=settings.seed)
        case "frequency":
            return FrequencyPolicy()


def expected_pages(ledger: Ledger, settings: QuerySettings) -> int:
    """Result pages a query is expected to read: once a window of ``saturation_window``
    queries was answered, the most pages any of them read if their lists went on past the pages
    read (full pages: the paging rule stopped them), at most ``max_result_pages``.

    The greedy policy caps a word's expected results at this many pages, the records already
    seen first: once the paging rule reads one page a query (a search ranking in a fixed order
    shows the known records first), a word of a long list is worth nothing and one whose list
    fits on the pages read is worth its unseen share.
    """
    cap = settings.max_result_pages
    window = ledger.history[-settings.saturation_window :]
    if ledger.page_size is None or len(window) < settings.saturation_window:
        return cap
    cut = [o.cost for o in window if o.results >= o.cost * ledger.page_size]
    return min(cap, max(cut)) if cut else cap


class KeywordManager:
    """Chooses the form's keywords adaptively from the words the crawl has learnt.

    Args:
        settings: the keyword section of the settings.
        querying: the query loop's settings (the pages a query is expected to read).
        ledger: what the querying learnt (read only: the size estimate, the page size, the
            sources the schedule left or used).
        policy: the query policy; default: the one ``settings.policy`` names.
        seeds: the user's queries, tried first, all of them; ``settings.keywords_file`` adds
            its words after these.
        frequent: the generic cold-start list; default: the bundled ``<language>-frequent``.
        stop_words: the stop words; default: the bundled ``<language>-stopwords``.

    Raises:
        ConfigError: ``settings.keywords_file`` is missing, unreadable, empty or binary, or no
            frequent-word list exists for ``settings.language``.
    """

    def __init__(
        self,
        settings: KeywordSettings,
        ledger: Ledger,
        *,
        querying: QuerySettings | None = None,
        policy: QueryPolicy | None = None,
        seeds: Sequence[str] = (),
        frequent: Sequence[str] | None = None,
        stop_words: Collection[str] | None = None,
    ) -> None:
        self.settings = settings
        self.querying = querying if querying is not None else QuerySettings()
        self.ledger = ledger
        self.policy = policy or make_policy(settings)
        user = load_word_list(settings.keywords_file) if settings.keywords_file else []
        self._seeds = [*seeds, *user]
        self._examples: list[str] = []
        self._frequent = (
            list(frequent) if frequent is not None else frequent_words(settings.language)
        )
        self._stopwords = frozenset(
            w.casefold()
            for w in (stop_words if stop_words is not None else stopwords(settings.language))
        )
        self.stopwords_accepted: bool | None = None
        self._issued: set[str] = set()
        self._df: Counter[str] = Counter()  # content terms
        self._df_stop: Counter[str] = Counter()  # stop words, queried only if accepted
        self._texted: set[str] = set()  # records whose terms are counted
        self._cold_start: list[str] = []
        self._refresh_cold_start()
        self._pages = PageTerms(self, frame_share=settings.records_frame_share)
        self._terms: dict[WordSource, SourceTerms] = {
            WordSource.RESULTS: ResultTerms(self),
            WordSource.ENTRIES: SourceTerms(self),
            WordSource.RECORDS: self._pages,
        }
        self._frame_asked = False
        self._source_of: dict[str, WordSource] = {}  # case-folded query -> where it came from
        self._entries = EntryBlocks(
            self._terms[WordSource.ENTRIES], settings.min_term_length, usable=self._usable
        )

    # -- the QueryState protocol read by policies ------------------------------------------

    @property
    def issued(self) -> frozenset[str]:
        """Case-folded queries handed out or recorded so far."""
        return frozenset(self._issued)

    @property
    def cold_start(self) -> Sequence[str]:
        """Seeds, then the frequent words; stop words left out unless the site accepts them."""
        return self._cold_start

    @property
    def term_df(self) -> Mapping[str, int]:
        """Document frequency of each term among the records whose text is known; stop words
        are among the terms only once the site has accepted them."""
        if self.stopwords_accepted:
            return {**self._df_stop, **self._df}
        return self._df

    @property
    def texted_records(self) -> int:
        """Records whose text is known."""
        return len(self._texted)

    @property
    def estimated_size(self) -> float | None:
        """The capture–recapture estimate of the database size, None while unknown."""
        return self.ledger.estimated_size

    @property
    def page_size(self) -> int | None:
        """Largest number of results one result page held so far (None before any)."""
        return self.ledger.page_size

    @property
    def max_result_pages(self) -> int:
        """Result pages a query is expected to read (:func:`expected_pages`)."""
        return expected_pages(self.ledger, self.querying)

    # -- the words -------------------------------------------------------------------------

    def stopword_probe_queries(self) -> list[str]:
        """The stop words to submit before anything else (empty once the probe is recorded)."""
        if self.stopwords_accepted is not None:
            return []
        return [q for q in self.settings.stopword_probes if q.casefold() not in self._issued]

    def record_stopword_probe(self, accepted: bool) -> bool:
        """Tell whether the site answered the probe queries with results: stop words then stay
        in the cold-start list and among the terms (they reach the most records), else they are
        never queried. Returns ``accepted``."""
        self.stopwords_accepted = accepted
        self._refresh_cold_start()
        return accepted

    def next_query(self) -> str | None:
        """The next keyword to submit, or None when no source has a word left.

        The keyword counts as issued at once: it is never handed out again.
        """
        chosen = self._choose()
        if chosen is None:
            return None
        query, source = chosen
        self._frame_asked |= source is WordSource.FRAME
        self._issued.add(query.casefold())
        self._source_of.setdefault(query.casefold(), source)
        return query

    def mark_issued(self, query: str, source: WordSource | None = None) -> None:
        """Count ``query`` as asked (a probe, an empty query, a list read again): never handed
        out by :meth:`next_query`; ``source``: where it came from (a query asked before, read
        back)."""
        folded = query.casefold()
        self._issued.add(folded)
        if source is not None:
            self._source_of.setdefault(folded, source)
            self._frame_asked |= source is WordSource.FRAME

    def _choose(self) -> tuple[str, WordSource] | None:
        """The next word and its source: the user's, the frame query while due (a list of
        every record leaves the other words little to bring), the examples', then the learnt
        sources in order (the policy choosing), then the frequent words."""
        issued = self.issued
        for word in self._seeds:
            if word.casefold() not in issued:
                return word, WordSource.USER
        greedy = isinstance(self.policy, GreedyPolicy)
        if greedy and (frame := self.frame_query()) is not None:
            return frame, WordSource.FRAME
        if (example := self._examples_word()) is not None:
            return example, WordSource.EXAMPLE
        if not greedy:  # the baselines draw from their own list
            chosen = self.policy.choose(self)
            return (chosen, WordSource.FREQUENT) if chosen is not None else None
        left = self.ledger.sources.left
        for source in LEARNT:
            if source in left:
                continue
            terms = self._terms[source]
            chosen = self.policy.choose(terms)
            if chosen is not None and chosen.casefold() in terms.term_df:
                return chosen, source
        for word in self.cold_start:
            if word.casefold() not in issued:
                return word, WordSource.FREQUENT
        return None

    def _examples_word(self) -> str | None:
        """The examples' next word not asked, None once they are all asked or left."""
        if WordSource.EXAMPLE in self.ledger.sources.left:
            return None
        issued = self.issued
        return next((w for w in self._examples if w.casefold() not in issued), None)

    @property
    def user_words_left(self) -> bool:
        """Whether a word of the user's is still to be sent (they all are, whatever else)."""
        issued = self.issued
        return any(word.casefold() not in issued for word in self._seeds)

    def untried(self) -> list[WordSource]:
        """Sources with a word to give that no query has come from yet (and not left)."""
        issued = self.issued
        sources = self.ledger.sources
        out: list[WordSource] = []
        for source in (WordSource.EXAMPLE, *LEARNT):
            if source in sources.left or sources.used[source]:
                continue
            if source is WordSource.EXAMPLE:
                if any(w.casefold() not in issued for w in self._examples):
                    out.append(source)
            elif self._terms[source].untried(issued):
                out.append(source)
        return out

    def frame_query(self) -> str | None:
        """The record pages' template terms as one query, while it is due: once, where the
        site refuses stop words (the words every record holds), from twenty record pages on
        (see ``keywords.frame_query_terms``)."""
        count = self.settings.frame_query_terms
        if count <= 0 or self.stopwords_accepted is not False or self._frame_asked:
            return None
        query = " ".join(self._pages.frame()[:count])
        return query if query and query.casefold() not in self.issued else None

    @property
    def frame_due(self) -> bool:
        """Whether the frame query (:meth:`frame_query`) is the next word handed out, the
        user's words all sent: the crawl asks it before reading hub pages and before reading
        on the lists the setup phase cut short, which a list of every record leaves nothing
        to bring."""
        if self.frame_query() is None or not isinstance(self.policy, GreedyPolicy):
            return False
        issued = self.issued
        return all(w.casefold() in issued for w in self._seeds)

    def source_of(self, query: str) -> WordSource | None:
        """Where ``query`` came from (None: not handed out by this manager)."""
        return self._source_of.get(query.casefold())

    def add_examples(self, documents: Sequence[str]) -> list[str]:
        """Queue the xCrawl queries of the user's example pages (their texts), tried after the
        user's words and before any learnt word; returns the queries queued."""
        queries = seed_queries_from_samples(
            documents, self.settings, limit=max(0, self.settings.example_queries)
        )
        known = {w.casefold() for w in self._examples}
        self._examples += [q for q in queries if q.casefold() not in known]
        return queries

    def learn_entries(self, query: str, blocks: Sequence[str], *, empty: bool = False) -> int:
        """Learn terms from the text a query's result pages showed (short text blocks: see
        :class:`~deepcrawl.querying.entries.EntryBlocks`); ``empty``: the search said nothing
        matched. Returns how many blocks were counted."""
        history = self.ledger.history
        latest = history[-1] if history else None
        empty = empty or (latest is not None and latest.query == query and not latest.results)
        return self._entries.learn(query, blocks, empty=empty)

    def learn_record(self, text: str, terms: frozenset[str] | None = None) -> None:
        """Learn terms from the main text of a fetched record page (one record's); ``terms``:
        its :func:`~deepcrawl.keywords.text.record_terms`, where another index counted them."""
        if terms is None:
            terms = record_terms(text, min_length=self.settings.min_term_length)
        self._terms[WordSource.RECORDS].add(self._usable(terms))

    def learn_texts(self, ids: Collection[str], texts: Mapping[str, str]) -> None:
        """Learn terms from the texts of records (result snippets, a link's text) among
        ``ids`` whose text was not learnt before: the result links' source of words."""
        for record_id, text in texts.items():
            if record_id in ids and record_id not in self._texted:
                self._texted.add(record_id)
                terms = record_terms(text, min_length=self.settings.min_term_length)
                self._df.update(sorted(terms - self._stopwords))
                self._df_stop.update(sorted(terms & self._stopwords))

    def _usable(self, terms: frozenset[str]) -> frozenset[str]:
        """Terms a query may use: stop words only while the site accepts them."""
        return terms if self.stopwords_accepted else terms - self._stopwords

    def _refresh_cold_start(self) -> None:
        words = [*self._seeds, *self._frequent]
        if not self.stopwords_accepted:
            words = [w for w in words if w.casefold() not in self._stopwords]
        self._cold_start = words
