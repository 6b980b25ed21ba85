"""The probabilistic string prototyper (Hernández et al., "The String Prototyper").

From the URLs found on a site's result pages, learn regular-expression *prototypes* — one per kind
of page — with their coverage and examples, and assign any URL to its prototype::

    prototyper = Prototyper().fit(urls)
    for p in prototyper.prototypes_:
        print(p.id, p.regex, p.coverage, p.examples)
    prototyper.predict(["https://example.com/book/17"])   # -> ["p1a2b3c4d5e"]

``_tree`` holds ``markParts`` (which parts are constant, which variable), ``_types`` the typed
wildcards, ``_matcher`` the fast matcher, ``_model`` the :class:`Prototype` record, ``_like``
the prototype of a ``--like`` example over a URL list (:func:`like_prototype`), ``_labelling``
the user's labels (:class:`LabelSession`), ``_evidence`` which kind the result lists show
as records (:func:`kind_evidence`), ``_overview`` the kinds described for the person
labelling them (:func:`kinds`), ``_evaluate`` scoring against known page kinds.
"""

from deepcrawl.prototypes._evaluate import PrototypeScore, score_prototypes
from deepcrawl.prototypes._evidence import (
    KindEvidence,
    ShownLink,
    kind_evidence,
    matched_links,
    record_kinds,
)
from deepcrawl.prototypes._labelling import (
    LabelSession,
    from_row,
    read_labels_file,
    resolve_like,
    suggest_name,
    to_row,
)
from deepcrawl.prototypes._like import LikeMatch, like_prototype
from deepcrawl.prototypes._matcher import PrototypeMatcher
from deepcrawl.prototypes._model import Prototype, prototype_id
from deepcrawl.prototypes._overview import (
    Example,
    Kind,
    describe_shape,
    kinds,
    labels_yaml,
    record_suggestion,
)
from deepcrawl.prototypes._prototyper import Prototyper
from deepcrawl.prototypes._types import Wildcard
from deepcrawl.prototypes._types import classify as classify_token

__all__ = [
    "Example",
    "Kind",
    "KindEvidence",
    "LabelSession",
    "LikeMatch",
    "Prototype",
    "PrototypeMatcher",
    "PrototypeScore",
    "Prototyper",
    "ShownLink",
    "Wildcard",
    "classify_token",
    "describe_shape",
    "from_row",
    "kind_evidence",
    "kinds",
    "labels_yaml",
    "like_prototype",
    "matched_links",
    "prototype_id",
    "read_labels_file",
    "record_kinds",
    "record_suggestion",
    "resolve_like",
    "score_prototypes",
    "suggest_name",
    "to_row",
]
