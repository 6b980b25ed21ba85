"""What a record is, by the evidence of its pages: the floor under the crawl engine.

A crawl keys a record by its URL's normal form, but a URL says too much (the parameters that
carry a session or echo the query) or too little (one record under several URLs). This package
holds what the engine's phases ask of a record, each module one question:

* :mod:`~deepcrawl.records.identity` — the record a fetched page shows: its canonical link, its
  main text's fingerprint, and the parameters the duplicates teach to be no part of a URL
  (Koppula et al.'s rewrite rules);
* :mod:`~deepcrawl.records.session_params` — the parameters learnt to carry a session (a new
  id-like value on every response) or to echo the submitted query
  (:mod:`~deepcrawl.records.echoes`), left out of every URL before it is classified or queued;
* :mod:`~deepcrawl.records.kinds` — the kinds of a site's pages: its URL classifier, a wanted
  URL's canonical key, any URL's kind;
* :mod:`~deepcrawl.records.like` — a ``--like`` example: its prototype, checked (narrowed and
  widened) by the pages' layout;
* :mod:`~deepcrawl.records.pick` — the crawl with no example: the kind of records picked from
  the setup queries' evidence;
* :mod:`~deepcrawl.records.documents` — the stored pages, as a browser's scripts ask for them.

It decides nothing about the crawl's course (that is :mod:`deepcrawl.crawler`'s) and holds no
crawl: what it needs of one is a small protocol
(:class:`~deepcrawl.records.identity.RecordContext`) or the stored facts themselves. Its members
are imported on first use: the classifier and the layout check pull in scikit-learn and the
browser stack.
"""

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr

if TYPE_CHECKING:
    from deepcrawl.records.documents import StoredPages
    from deepcrawl.records.echoes import QueryEchoes
    from deepcrawl.records.identity import (
        DroppedParams,
        Identities,
        Identity,
        RecordContext,
        canonical_link,
        fingerprint,
    )
    from deepcrawl.records.kinds import canonical_url, make_classifier, page_kind
    from deepcrawl.records.like import LikeAnswer, LikeLayout, check_like_layout
    from deepcrawl.records.pick import Pick, PickedKind, pick_records
    from deepcrawl.records.session_params import LearntSessions

__all__ = [
    "DroppedParams",
    "Identities",
    "Identity",
    "LearntSessions",
    "LikeAnswer",
    "LikeLayout",
    "Pick",
    "PickedKind",
    "QueryEchoes",
    "RecordContext",
    "StoredPages",
    "canonical_link",
    "canonical_url",
    "check_like_layout",
    "fingerprint",
    "make_classifier",
    "page_kind",
    "pick_records",
]

_LAZY = {
    "DroppedParams": "deepcrawl.records.identity",
    "Identities": "deepcrawl.records.identity",
    "Identity": "deepcrawl.records.identity",
    "LearntSessions": "deepcrawl.records.session_params",
    "LikeAnswer": "deepcrawl.records.like",
    "LikeLayout": "deepcrawl.records.like",
    "Pick": "deepcrawl.records.pick",
    "PickedKind": "deepcrawl.records.pick",
    "QueryEchoes": "deepcrawl.records.echoes",
    "RecordContext": "deepcrawl.records.identity",
    "StoredPages": "deepcrawl.records.documents",
    "canonical_link": "deepcrawl.records.identity",
    "canonical_url": "deepcrawl.records.kinds",
    "check_like_layout": "deepcrawl.records.like",
    "fingerprint": "deepcrawl.records.identity",
    "make_classifier": "deepcrawl.records.kinds",
    "page_kind": "deepcrawl.records.kinds",
    "pick_records": "deepcrawl.records.pick",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
