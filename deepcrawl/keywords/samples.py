"""Keywords from the user's sample documents, as xCrawl derives them (Shchekotykhin et al., §4).

When the user gives a few pages of the kind they want, xCrawl turns them into queries:

1. **GetTokens** — tokenise the samples, drop stop words, weight each token by TF-IDF over the
   samples. The paper does not say how a token's per-document weights make one; here it is the
   largest over the documents of tf·idf (tf the token's share of the document, smooth idf
   ln((1+n)/(1+df)) + 1), normalised so the top token weighs 1: a token in every sample
   ("review", "specifications" in the paper's Table 1) weighs little, a distinctive one much,
   as in that table. (A sum over documents would favour the ubiquitous tokens instead.)
2. **Search weight** — each token's hit count h for a query of that token alone, normalised by
   the largest: general words weigh near 1, specific ones near 0. Hit counts come from a
   callable the caller supplies (the site's reported result count for a one-word query, say);
   without one, or where it returns None, a Zipf proxy from the bundled frequent-word list is
   used (h ∝ 1/rank, words not in the list rarer than all that are).
3. **H Mean** — the harmonic mean of TF-IDF and search weight, "because every weight value should
   contribute equally".
4. **Middle-out queries** — order the tokens by H Mean, start from the central element and take
   its neighbours in ascending distance (above first, as "specifications sensor zoom" in the
   paper's example), so that neither the most specific nor the most popular tokens lead; all
   combinations of ``terms_per_query`` tokens are produced, those nearest the centre first.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias, TypeVar

from deepcrawl.keywords.sources import frequent_words, stopwords
from deepcrawl.keywords.text import tokenize

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Mapping, Sequence

    from deepcrawl.settings import KeywordSettings

__all__ = [
    "SAMPLE_MAX_TOKENS",
    "SAMPLE_QUERY_TERMS",
    "HitCounter",
    "WeightedToken",
    "combine_weights",
    "derive_keywords",
    "frequency_hits",
    "middle_out",
    "preselected_keywords",
    "sample_queries",
    "seed_queries_from_samples",
    "tfidf_weights",
]

#: Words per query derived from sample documents: xCrawl (section 4) used 3 with a web search
#: engine; a site's search form usually ANDs its words, so one word reaches most records.
SAMPLE_QUERY_TERMS = 1
#: Tokens of the sample documents kept for query generation, highest TF-IDF first.
SAMPLE_MAX_TOKENS = 50

T = TypeVar("T")

#: Hit count of a one-token query, or None when unknown.
HitCounter: TypeAlias = Callable[[str], int | None]


@dataclass(frozen=True, slots=True)
class WeightedToken:
    """A token of the samples with its xCrawl weights (all in [0, 1]).

    Attributes:
        token: the word.
        tfidf: normalised TF-IDF weight over the samples.
        hits: the hit count used for the search weight.
        search_weight: hits / the largest hits of the tokens.
        weight: harmonic mean of ``tfidf`` and ``search_weight`` (the paper's H Mean).
    """

    token: str
    tfidf: float
    hits: int
    search_weight: float
    weight: float


def tfidf_weights(
    documents: Sequence[str], stop_words: Collection[str] = (), *, min_length: int = 2
) -> dict[str, float]:
    """Normalised TF-IDF weight of every token of ``documents`` (GetTokens).

    Returns:
        token -> weight in (0, 1], the heaviest token weighing 1; empty if no token.
    """
    docs = [
        [t for t in tokenize(doc) if len(t) >= min_length and t not in stop_words]
        for doc in documents
    ]
    df: Counter[str] = Counter()
    for tokens in docs:
        df.update(set(tokens))
    n = len(docs)
    scores: dict[str, float] = {}
    for tokens in docs:
        if not tokens:
            continue
        for token, count in Counter(tokens).items():
            idf = math.log((1 + n) / (1 + df[token])) + 1
            scores[token] = max(scores.get(token, 0.0), count / len(tokens) * idf)
    top = max(scores.values(), default=0.0)
    return {token: score / top for token, score in scores.items()} if top else {}


def frequency_hits(words: Sequence[str] | None = None) -> Callable[[str], int]:
    """A hit-count proxy from a frequency list: Zipf's law, hits ∝ 1/rank.

    Args:
        words: the list, most frequent first; default the bundled English one.

    Returns:
        token -> pseudo hit count (10⁹/rank; 10⁹/(len+1) for words not in the list).
    """
    ranks = {w.casefold(): rank for rank, w in enumerate(words or frequent_words(), 1)}
    floor = len(ranks) + 1

    def hits(token: str) -> int:
        return round(1e9 / ranks.get(token.casefold(), floor))

    return hits


def derive_keywords(
    documents: Sequence[str],
    *,
    hits: HitCounter | None = None,
    stop_words: Collection[str] | None = None,
    max_tokens: int = 50,
    min_length: int = 2,
) -> list[WeightedToken]:
    """Weighted tokens of the samples, heaviest H Mean first (xCrawl GetTokens + search weights).

    Args:
        documents: texts of the sample documents.
        hits: hit count of a one-token query; None, or None for a token: the Zipf proxy.
        stop_words: words to drop; default the bundled English stop words.
        max_tokens: only this many tokens of highest TF-IDF are weighted (each may cost a query).
        min_length: shorter tokens are dropped.

    Returns:
        The tokens with their weights, ordered by H Mean descending (ties by token).
    """
    stop = stopwords() if stop_words is None else frozenset(w.casefold() for w in stop_words)
    tfidf = tfidf_weights(documents, stop, min_length=min_length)
    kept = sorted(tfidf, key=lambda t: (-tfidf[t], t))[:max_tokens]
    return combine_weights({token: tfidf[token] for token in kept}, _hit_counts(kept, hits))


def preselected_keywords(
    tokens: Sequence[str], *, hits: HitCounter | None = None
) -> list[WeightedToken]:
    """Weighted tokens from a list the user chose: TF-IDF weight 1 each (xCrawl §4, GetTokens:
    "xCrawl will automatically associate weights of 1 with each of the tokens"), then the same
    search weights and H Mean as :func:`derive_keywords`.

    Args:
        tokens: the user's words or phrases.
        hits: hit count of a one-token query; None, or None for a token: the Zipf proxy.
    """
    counts = _hit_counts(list(dict.fromkeys(tokens)), hits)
    return combine_weights(dict.fromkeys(counts, 1.0), counts)


def _hit_counts(tokens: Sequence[str], hits: HitCounter | None) -> dict[str, int]:
    """Hit count of every token: from ``hits`` where it knows, else the Zipf proxy."""
    proxy = frequency_hits()
    counts = {}
    for token in tokens:
        found = hits(token) if hits is not None else None
        counts[token] = max(0, found if found is not None else proxy(token))
    return counts


def combine_weights(tfidf: Mapping[str, float], hits: Mapping[str, int]) -> list[WeightedToken]:
    """Search weights from hit counts, combined with TF-IDF by harmonic mean (Table 1).

    Args:
        tfidf: token -> TF-IDF weight in [0, 1].
        hits: token -> hit count of the one-token query (tokens missing here count 0).

    Returns:
        The tokens ordered by H Mean descending (ties by token).
    """
    top = max((hits.get(token, 0) for token in tfidf), default=0)
    weighted = []
    for token, a in tfidf.items():
        count = hits.get(token, 0)
        b = count / top if top else 0.0
        weighted.append(WeightedToken(token, a, count, b, 2 * a * b / (a + b) if a + b else 0.0))
    weighted.sort(key=lambda w: (-w.weight, w.token))
    return weighted


def middle_out(items: Sequence[T]) -> list[T]:
    """``items`` from the central element outwards: centre, one above, one below, two above…

    For seven items: positions 3, 2, 4, 1, 5, 0, 6.
    """
    if not items:
        return []
    centre = (len(items) - 1) // 2
    order = [centre]
    for distance in range(1, len(items)):
        order += [i for i in (centre - distance, centre + distance) if 0 <= i < len(items)]
    return [items[i] for i in order]


def _combinations_by_sum(n: int, k: int) -> Iterator[tuple[int, ...]]:
    """k-subsets of range(n) in order of increasing index sum, then lexicographically."""

    def with_sum(start: int, size: int, total: int) -> Iterator[tuple[int, ...]]:
        if size == 0:
            if total == 0:
                yield ()
            return
        for first in range(start, n - size + 1):
            least = size * first + size * (size - 1) // 2
            if least > total:
                return
            for rest in with_sum(first + 1, size - 1, total - first):
                yield (first, *rest)

    if not 0 < k <= n:
        return
    for total in range(k * (k - 1) // 2, sum(range(n - k, n)) + 1):
        yield from with_sum(0, k, total)


def sample_queries(weighted: Sequence[WeightedToken], terms_per_query: int = 1) -> Iterator[str]:
    """Queries built middle-out from tokens ordered by H Mean (xCrawl's AQG order).

    Args:
        weighted: tokens ordered by H Mean, heaviest first (as :func:`derive_keywords` returns).
        terms_per_query: tokens per query (the paper caps it for the search engine at hand).

    Yields:
        Every combination of ``terms_per_query`` tokens, tokens nearest the centre first; each
        query's tokens in middle-out order ("specifications sensor zoom").
    """
    tokens = middle_out([w.token for w in weighted])
    for combo in _combinations_by_sum(len(tokens), terms_per_query):
        yield " ".join(tokens[i] for i in combo)


def seed_queries_from_samples(
    documents: Sequence[str],
    settings: KeywordSettings,
    *,
    hits: HitCounter | None = None,
    limit: int = 200,
    terms_per_query: int = SAMPLE_QUERY_TERMS,
) -> list[str]:
    """xCrawl queries for :class:`~deepcrawl.keywords.manager.KeywordManager`'s ``seeds``.

    Args:
        documents: texts of the user's sample pages.
        settings: ``min_term_length`` and ``language`` are read.
        hits: hit count of a one-token query (see :func:`derive_keywords`).
        limit: at most this many queries.
        terms_per_query: words per query.
    """
    weighted = derive_keywords(
        documents,
        hits=hits,
        stop_words=stopwords(settings.language),
        max_tokens=SAMPLE_MAX_TOKENS,
        min_length=settings.min_term_length,
    )
    queries = []
    for query in sample_queries(weighted, terms_per_query):
        queries.append(query)
        if len(queries) >= limit:
            break
    return queries
