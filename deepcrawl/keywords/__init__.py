"""The keyword manager: which keywords to submit to a search form, and when to stop.

Roles, one module each:

- ``sources``  — the bundled word lists (``keywords/``) and the user's ``--keywords FILE``;
- ``text``     — record texts to query terms (tokenise, lower-case, drop stop words);
- ``policy``   — query selection policies (greedy of Ntoulas et al., random, frequency);
- ``estimate`` — capture–recapture estimate of the hidden database's size;
- ``samples``  — xCrawl keyword derivation from sample documents (TF-IDF × hit count);
- ``outcome``  — what the manager reports: stop reasons, word sources, query outcomes;
- ``terms``    — per-source term statistics, each a policy's view of one source;
- ``saturation`` — the evidence that the queries stopped bringing new records;
- ``manager``  — the :class:`KeywordManager` the form filler drives;
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
from deepcrawl.keywords.manager import (
    KeywordManager,
    QueryOutcome,
    StopReason,
    WordSource,
    make_policy,
)
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
    "KeywordManager",
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
    "make_policy",
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
