"""The words a search form is queried with: lists, terms, policies, estimates.

What the keyword manager (:mod:`deepcrawl.querying.words`) chooses from, and how it values
them. Roles, one module each:

- ``sources``  — the bundled word lists (``keywords/``) and the user's ``--keywords FILE``;
- ``text``     — record texts to query terms (tokenise, lower-case, drop stop words);
- ``policy``   — query selection policies (greedy of Ntoulas et al., random, frequency);
- ``estimate`` — capture–recapture estimate of the hidden database's size;
- ``samples``  — xCrawl keyword derivation from sample documents (TF-IDF × hit count);
- ``outcome``  — what a query brought, where its word came from, why the words stop;
- ``terms``    — per-source term statistics, each a policy's view of one source;
- ``simulate`` — a synthetic hidden database for benchmarks and tests.
"""

from deepcrawl.keywords.estimate import (
    CaptureRecapture,
    CoverageEstimate,
    Estimator,
    chao1,
    chapman,
    schnabel,
)
from deepcrawl.keywords.outcome import QueryOutcome, StopReason, WordSource
from deepcrawl.keywords.policy import (
    FrequencyPolicy,
    GreedyPolicy,
    QueryPolicy,
    QueryState,
    RandomPolicy,
)
from deepcrawl.keywords.samples import (
    HitCounter,
    WeightedToken,
    combine_weights,
    derive_keywords,
    frequency_hits,
    middle_out,
    preselected_keywords,
    sample_queries,
    seed_queries_from_samples,
    tfidf_weights,
)
from deepcrawl.keywords.sources import (
    available_lists,
    bundled_list,
    frequent_words,
    keyword_dir,
    load_word_list,
    parse_word_list,
    stopwords,
)
from deepcrawl.keywords.text import record_terms, tokenize

__all__ = [
    "CaptureRecapture",
    "CoverageEstimate",
    "Estimator",
    "FrequencyPolicy",
    "GreedyPolicy",
    "HitCounter",
    "QueryOutcome",
    "QueryPolicy",
    "QueryState",
    "RandomPolicy",
    "StopReason",
    "WeightedToken",
    "WordSource",
    "available_lists",
    "bundled_list",
    "chao1",
    "chapman",
    "combine_weights",
    "derive_keywords",
    "frequency_hits",
    "frequent_words",
    "keyword_dir",
    "load_word_list",
    "middle_out",
    "parse_word_list",
    "preselected_keywords",
    "record_terms",
    "sample_queries",
    "schnabel",
    "seed_queries_from_samples",
    "stopwords",
    "tfidf_weights",
    "tokenize",
]
