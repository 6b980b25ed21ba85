"""The keyword manager: which keyword to submit next, and when to stop.

Hernández et al. ("The Keyword Manager") give it the job of supplying the form filler with
keywords likely to be in the site's database. The form filler drives it in a loop::

    manager = KeywordManager(settings.keywords)
    for word in manager.stopword_probe_queries():      # does the site accept "the"?
        ids, texts, pages = submit(word)
        manager.record(word, ids, texts, cost=pages)
    manager.record_stopword_probe()                     # drops stop words if none found a thing
    while (word := manager.next_query()) is not None:  # None once saturated or out of words
        ids, texts, pages = submit(word)
        manager.record(word, ids, texts, cost=pages)
    print(manager.stop_reason, manager.coverage())

Record ids are whatever identifies a record across queries — the canonical URL of its detail
page, say — and only result links count (not the page's menus), or every query would look alike.
Texts are what the filler knows of a record: its result snippet, or its page once downloaded.

It keeps what the queries brought (records, their terms, capture counts), asks its policy
(``policy.py``) for the next query, estimates the database size from the overlap of the result
sets (``estimate.py``), and stops on saturation (the last K queries brought fewer than a
threshold of new records — and, on a large site, showed a share of its records between them),
on budget, when the form returns the same results for every keyword, or after repeated errors.

Words come from *sources* (:class:`WordSource`), tried in order: the user's words (``seeds`` and
``--keywords FILE``), all of them, first; then the xCrawl queries of the ``--like`` pages
(:meth:`KeywordManager.add_examples`); then, once, where the site refuses stop words, the record
pages' template words together (:meth:`KeywordManager.frame_query`); then, chosen by the policy,
the words of the result links' texts, of the text the result pages show around the query word
(:meth:`KeywordManager.learn_entries`: a search evidently indexes the text it matched) and of
the fetched record pages (:meth:`KeywordManager.learn_record`); the language's frequent words
last. A search covers only some of a record's text — a full-text index over a few columns does
not hold the column names and codes of the record page — so the manager counts, per source, the
queries that came back empty, and leaves a source whose last ``source_empty_run`` queries all
did. Saturation is not declared while the size estimate says most records are missing
(``saturation_max_missing``) and a source is left untried: the saturated source is left instead.
Below that share the next untried source is tried for ``source_trial_queries`` queries before
saturation is declared: the estimate under-counts the records one source's words never reach,
since its queries re-catch the same records (those rules: :mod:`~deepcrawl.keywords.switching`).
"""

from __future__ import annotations

import logging
import re
from collections import Counter, deque
from typing import TYPE_CHECKING

from deepcrawl.keywords.estimate import CaptureRecapture, CoverageEstimate
from deepcrawl.keywords.outcome import LEARNT, LEAVABLE, QueryOutcome, StopReason, WordSource
from deepcrawl.keywords.policy import FrequencyPolicy, GreedyPolicy, QueryPolicy, RandomPolicy
from deepcrawl.keywords.samples import seed_queries_from_samples
from deepcrawl.keywords.sources import frequent_words, load_word_list, stopwords
from deepcrawl.keywords.switching import SourceSwitching
from deepcrawl.keywords.terms import PageTerms, ResultTerms, SourceTerms
from deepcrawl.keywords.text import record_terms
from deepcrawl.settings import KeywordSettings

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping, Sequence

__all__ = ["KeywordManager", "QueryOutcome", "StopReason", "WordSource", "make_policy"]

logger = logging.getLogger(__name__)


#: Numbers in a result-page block (a count beside the echoed query), blanked to compare echoes.
_DIGITS = re.compile(r"\d+")


def make_policy(settings: KeywordSettings) -> QueryPolicy:
    """The policy named by ``settings.policy``, configured from the same settings."""
    match settings.policy:
        case "greedy":
            return GreedyPolicy(page_cost=settings.page_cost)
        case "random":
            return RandomPolicy(seed=settings.seed)
        case "frequency":
            return FrequencyPolicy()


class KeywordManager(SourceSwitching):
    """Chooses the form's keywords adaptively and tells when the database is exhausted.

    Args:
        settings: the keyword section of the settings (defaults if None).
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
        settings: KeywordSettings | None = None,
        *,
        policy: QueryPolicy | None = None,
        seeds: Sequence[str] = (),
        frequent: Sequence[str] | None = None,
        stop_words: Collection[str] | None = None,
    ) -> None:
        self.settings = settings or KeywordSettings()
        self.policy = policy or make_policy(self.settings)
        user = load_word_list(self.settings.keywords_file) if self.settings.keywords_file else []
        self._seeds = [*seeds, *user]
        self._examples: list[str] = []
        self._frequent = (
            list(frequent) if frequent is not None else frequent_words(self.settings.language)
        )
        self._stopwords = frozenset(
            w.casefold()
            for w in (stop_words if stop_words is not None else stopwords(self.settings.language))
        )
        self.stopwords_accepted: bool | None = None
        self.history: list[QueryOutcome] = []
        #: Queries submitted: every outcome of :attr:`history`, and the queries :meth:`skip`
        #: counted without one — one a stored query, the count ``deepcrawl status`` shows.
        self.asked = 0
        self.records: set[str] = set()
        self.capture = CaptureRecapture(self.settings.estimator)
        self._issued: set[str] = set()
        self._df: Counter[str] = Counter()  # content terms
        self._df_stop: Counter[str] = Counter()  # stop words, queried only if accepted
        self._texted: set[str] = set()  # records whose terms are counted
        self._cold_start: list[str] = []
        self._refresh_cold_start()
        self._cost = 0
        self._page_size: int | None = None
        self._recent: deque[frozenset[str]] = deque(maxlen=max(1, self.settings.identical_window))
        self._errors_in_row = 0
        self._stop: StopReason | None = None
        self._pages = PageTerms(self, frame_share=self.settings.records_frame_share)
        self._terms: dict[WordSource, SourceTerms] = {
            WordSource.RESULTS: ResultTerms(self),
            WordSource.ENTRIES: SourceTerms(self),
            WordSource.RECORDS: self._pages,
        }
        self._frame_asked = False
        self._source_of: dict[str, WordSource] = {}  # case-folded query -> where it came from
        self._empty_run: Counter[WordSource] = Counter()  # empty answers in a row, by source
        self._used: Counter[WordSource] = Counter()  # queries answered, by source
        self._empty: Counter[WordSource] = Counter()  # empty answers, by source
        self.left: set[WordSource] = set()
        """Sources left for good: their words kept coming back empty, or they saturated."""
        self.since = 0
        """Saturation is judged over the queries from this one on (the last source left)."""
        self._trial: int | None = None  # a source on trial: its first query's index
        self._trial_length = 0  # and the queries it is given
        # result-page blocks with the query blanked: those seen (hashed: a large crawl sees
        # millions), and the latest query's counted ones
        self._echoes: set[int] = set()
        self._latest: dict[str, frozenset[str]] = {}
        self._held: dict[str, frozenset[str]] = {}  # the latest query's blocks with a number

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
        return self.capture.estimate().estimated

    @property
    def page_size(self) -> int | None:
        """Largest number of results one result page held so far (None before any)."""
        return self._page_size

    @property
    def max_result_pages(self) -> int:
        """Result pages a query is expected to read: once a window of ``saturation_window``
        queries was answered, the most pages any of them read if their lists went on past
        the pages read (full pages: the paging rule stopped them), at most
        ``max_result_pages``.

        The greedy policy caps a word's expected results at this many pages, the records
        already seen first: once the paging rule reads one page a query (a search ranking in a
        fixed order shows the known records first), a word of a long list is worth nothing and
        one whose list fits on the pages read is worth its unseen share.
        """
        cap = self.settings.max_result_pages
        window = self.history[-self.settings.saturation_window :]
        if self._page_size is None or len(window) < self.settings.saturation_window:
            return cap
        cut = [o.cost for o in window if o.results >= o.cost * self._page_size]
        return min(cap, max(cut)) if cut else cap

    # -- driving -------------------------------------------------------------------------

    def stopword_probe_queries(self) -> list[str]:
        """The stop words to submit before anything else (empty once the probe is recorded)."""
        if self.stopwords_accepted is not None:
            return []
        return [q for q in self.settings.stopword_probes if q.casefold() not in self._issued]

    def record_stopword_probe(self, accepted: bool | None = None) -> bool:
        """Tell whether the site answered the probe queries with results.

        Args:
            accepted: True if stop-word queries returned records; stop words then stay in the
                cold-start list and among the terms (they reach the most records), else they
                are never queried. None: decide from the probe queries already recorded with
                :meth:`record` (accepted if any of them found a record).

        Returns:
            Whether stop words are accepted.
        """
        if accepted is None:
            probes = {q.casefold() for q in self.settings.stopword_probes}
            accepted = any(o.results for o in self.history if o.query.casefold() in probes)
        self.stopwords_accepted = accepted
        self._refresh_cold_start()
        return accepted

    def next_query(self) -> str | None:
        """The next keyword to submit, or None when the crawl should stop (see ``stop_reason``).

        The keyword counts as issued at once: it is never handed out again.
        """
        self.switch_if_saturated()
        if self.saturated:
            return None
        chosen = self._choose()
        if chosen is None:
            self._stop = StopReason.EXHAUSTED
            return None
        query, source = chosen
        self._frame_asked |= source is WordSource.FRAME
        self._issued.add(query.casefold())
        self._source_of.setdefault(query.casefold(), source)
        return query

    def _choose(self) -> tuple[str, WordSource] | None:
        """The next word and its source: the user's, the examples', then the learnt sources
        in order (the policy choosing), then the frequent words."""
        issued = self.issued
        for source, words in ((WordSource.USER, self._seeds), (WordSource.EXAMPLE, self._examples)):
            if source in self.left and source is not WordSource.USER:
                continue
            for word in words:
                if word.casefold() not in issued:
                    return word, source
        if not isinstance(self.policy, GreedyPolicy):  # the baselines draw from their own list
            chosen = self.policy.choose(self)
            return (chosen, WordSource.FREQUENT) if chosen is not None else None
        if (frame := self.frame_query()) is not None:
            return frame, WordSource.FRAME
        for source in LEARNT:
            if source in self.left:
                continue
            terms = self._terms[source]
            chosen = self.policy.choose(terms)
            if chosen is not None and chosen.casefold() in terms.term_df:
                return chosen, source
        for word in self.cold_start:
            if word.casefold() not in issued:
                return word, WordSource.FREQUENT
        return None

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
        user's and the examples' words all sent: the crawl asks it before reading hub pages,
        which a list of every record leaves nothing to bring."""
        if self.frame_query() is None:
            return False
        issued = self.issued
        return all(w.casefold() in issued for w in (*self._seeds, *self._examples))

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

    def learn_entries(self, query: str, blocks: Sequence[str]) -> int:
        """Learn terms from the text a query's result pages showed (short text blocks).

        Only the blocks holding the query's words count: the search matched them there, so
        they are text it indexes — a row's searchable columns, a hit's title and snippet —
        unlike the page's frame or a record's codes. A block that holds the query only by
        echoing it ("12 results for …") is frame too: blanked of the query and its numbers, it
        reads the same for the next query that shows its word, and its count is taken back
        then; a block with a number, the likeliest echo, is counted only once that next query
        did not show it. A block counted once is not counted again.

        Call it after :meth:`record` of the query: a query that found nothing shows no
        entries (any block holding its word echoes it), and teaches nothing.

        Returns:
            How many blocks were counted.
        """
        words = record_terms(query, min_length=1)
        latest = self.history[-1] if self.history else None
        if not words or (latest is not None and latest.query == query and not latest.results):
            return 0
        folded = query.casefold()
        matched: dict[str, frozenset[str]] = {}  # the block with the query blanked -> terms
        for block in dict.fromkeys(blocks):
            found = record_terms(block, min_length=self.settings.min_term_length)
            if words <= found:
                echo = _DIGITS.sub("#", block.casefold().replace(folded, "\x00"))
                matched.setdefault(echo, found)
        if not matched:  # no evidence either way: the latest blocks wait for a query that has
            return 0
        terms = self._terms[WordSource.ENTRIES]
        for echo in self._latest.keys() & matched.keys():  # an echo of the query: take it back
            terms.remove(self._latest[echo])
        for echo, found in self._held.items():  # not shown again: an entry after all
            if echo not in matched:
                terms.add(found)
        fresh = {
            echo: self._usable(found)
            for echo, found in matched.items()
            if hash(echo) not in self._echoes
        }
        self._echoes |= {hash(echo) for echo in matched}
        # a count beside the query ("12 results for …") is the likeliest echo: it waits
        self._held = {echo: found for echo, found in fresh.items() if "#" in echo}
        self._latest = {echo: found for echo, found in fresh.items() if "#" not in echo}
        for found in self._latest.values():
            terms.add(found)
        return len(self._latest)

    def learn_record(self, text: str) -> None:
        """Learn terms from the main text of a fetched record page (one record's)."""
        terms = record_terms(text, min_length=self.settings.min_term_length)
        self._terms[WordSource.RECORDS].add(self._usable(terms))

    def _usable(self, terms: frozenset[str]) -> frozenset[str]:
        """Terms a query may use: stop words only while the site accepts them."""
        return terms if self.stopwords_accepted else terms - self._stopwords

    def source_summary(self) -> dict[str, tuple[int, int]]:
        """Per source used so far: (queries answered, of them empty)."""
        return {str(source): (self._used[source], self._empty[source]) for source in self._used}

    def record(
        self,
        query: str,
        result_ids: Collection[str],
        texts: Mapping[str, str] | None = None,
        cost: int = 1,
        *,
        total_results: int | None = None,
        error: str | None = None,
        sample: Collection[str] | None = None,
    ) -> QueryOutcome:
        """Record what one submitted query brought.

        Args:
            query: the keyword submitted (from :meth:`next_query` or a probe).
            result_ids: ids of the records in all its result pages (URLs, say).
            texts: text of records by id (title, snippet or page text); only texts of records
                not known before are read. The greedy policy learns its terms from them.
            cost: requests used: the submission plus every further result page (>= 1).
            total_results: the result count the site reported, if it shows one.
            error: why the query failed (error page, timeout); its results are then empty.
            sample: the results that count as a capture–recapture sample (default: all). A
                list read again passes those of its pages not read before: the first read
                sampled the others, and counting them again would call them recaptured.

        Returns:
            The query's outcome, also appended to :attr:`history`.
        """
        self._issued.add(query.casefold())
        self.asked += 1
        ids = frozenset(result_ids)
        new = ids - self.records
        self.records |= new
        self._learn(ids, texts or {})
        self.capture.add(ids if sample is None else frozenset(sample) & ids)
        self._cost += max(cost, 1)
        if ids and cost >= 1:
            self._page_size = max(self._page_size or 0, -(-len(ids) // cost))
        source = self.source_of(query)
        outcome = QueryOutcome(
            query,
            len(ids),
            len(new),
            max(cost, 1),
            total_results,
            error,
            len(self.records),
            source,
        )
        self.history.append(outcome)
        self._errors_in_row = self._errors_in_row + 1 if error else 0
        if source is not None and not error:
            self._used[source] += 1
            self._empty[source] += not ids
            self._empty_run[source] = 0 if ids else self._empty_run[source] + 1
            run = self.settings.source_empty_run
            if run and self._empty_run[source] >= run and source in LEAVABLE:
                self.left.add(source)  # its words are not what the search matches
                logger.info("words from %s left: %d queries in a row found nothing", source, run)
        if not error:
            self._recent.append(ids)
        return outcome

    def skip(self, query: str) -> None:
        """Count ``query`` as asked without recording an outcome: an empty query that found
        nothing tells no more than that the search wants words, and leaves no trace in the
        history the stop rules read. It was submitted all the same: :attr:`asked` and the query
        budget count it."""
        self._issued.add(query.casefold())
        self.asked += 1

    def observe(self, ids: Collection[str], texts: Mapping[str, str] | None = None) -> int:
        """Count records reached without a query (links on fetched record pages) as known.

        Later queries do not call them new, so saturation comes when the form brings nothing
        the links did not; their texts feed the term statistics as sample documents do. The
        capture–recapture samples stay the queries' own.

        Returns:
            How many of ``ids`` were not known before.
        """
        new = frozenset(ids) - self.records
        self.records |= new
        self._learn(new, texts or {})
        return len(new)

    def _learn(self, ids: Collection[str], texts: Mapping[str, str]) -> None:
        for record_id, text in texts.items():
            if record_id in ids and record_id not in self._texted:
                self._texted.add(record_id)
                terms = record_terms(text, min_length=self.settings.min_term_length)
                self._df.update(sorted(terms - self._stopwords))
                self._df_stop.update(sorted(terms & self._stopwords))

    # -- stopping ------------------------------------------------------------------------

    @property
    def stop_reason(self) -> StopReason | None:
        """Why the crawl should stop, None while it should go on."""
        if self._stop is not None:
            return self._stop
        s = self.settings
        if self._errors_in_row >= s.max_consecutive_errors:
            return StopReason.ERRORS
        if (
            len(self._recent) == self._recent.maxlen
            and self._recent[0]
            # a full result page at least: the title words of one rare record, queried in turn
            # by the greedy policy, all return that one record (a small, real result set)
            and len(self._recent[0]) >= max(2, self._page_size or 0)
            and all(ids == self._recent[0] for ids in self._recent)
        ):
            return StopReason.IDENTICAL
        if self._spent() and not self._deferred():
            return StopReason.SATURATED
        if self.asked >= s.max_queries:
            return StopReason.QUERY_BUDGET
        if s.max_cost is not None and self._cost >= s.max_cost:
            return StopReason.COST_BUDGET
        return None

    @property
    def saturated(self) -> bool:
        """True once the crawl should stop (saturation, budget, identical results, errors)."""
        return self.stop_reason is not None

    @property
    def cost(self) -> int:
        """Requests used by all recorded queries."""
        return self._cost

    def coverage(self) -> CoverageEstimate:
        """Records reached against the estimated database size (capture–recapture)."""
        return self.capture.estimate()

    def _refresh_cold_start(self) -> None:
        words = [*self._seeds, *self._frequent]
        if not self.stopwords_accepted:
            words = [w for w in words if w.casefold() not in self._stopwords]
        self._cold_start = words
