"""Scoring prototypes against known page kinds (for tests, benchmarks and ``deepcrawl bench``).

A good prototyper gives each kind of page one prototype, and never lets one prototype hold two
kinds. The adjusted Rand index (ARI) of the prototype assignment against the true kinds measures
both at once (1.0: the same partition; about 0: chance); purity and the kinds split over several
prototypes say where it went wrong.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from deepcrawl.prototypes._prototyper import Prototyper

if TYPE_CHECKING:
    from collections.abc import Sequence


__all__ = ["PrototypeScore", "score_prototypes"]


@dataclass(frozen=True, slots=True)
class PrototypeScore:
    """How well prototypes match the true kinds of a set of URLs.

    Attributes:
        ari: adjusted Rand index of prototypes against kinds (unmatched URLs form one cluster).
        purity: share of URLs whose prototype's majority kind is their own kind.
        urls: URLs scored.
        kinds: distinct kinds among them.
        prototypes: prototypes learnt.
        split_kinds: kind -> number of prototypes its URLs fall in, for kinds in more than one.
        mixed_prototypes: prototype id -> kinds it holds, for prototypes holding more than one.
    """

    ari: float
    purity: float
    urls: int
    kinds: int
    prototypes: int
    split_kinds: dict[str, int] = field(default_factory=dict)
    mixed_prototypes: dict[str, list[str]] = field(default_factory=dict)


def score_prototypes(
    urls: Sequence[str], kinds: Sequence[str], prototyper: Prototyper | None = None
) -> PrototypeScore:
    """Prototype ``urls`` (with ``prototyper``, unfitted; None: the defaults) and score the
    result against their true ``kinds``."""
    from sklearn.metrics import adjusted_rand_score

    fitted = (prototyper or Prototyper()).fit(urls)
    predicted = [pid or "-" for pid in fitted.predict(urls)]
    by_kind: dict[str, set[str]] = defaultdict(set)
    by_prototype: dict[str, Counter[str]] = defaultdict(Counter)
    for kind, pid in zip(kinds, predicted, strict=True):
        by_kind[kind].add(pid)
        by_prototype[pid][kind] += 1
    majority = sum(c.most_common(1)[0][1] for c in by_prototype.values())
    return PrototypeScore(
        ari=float(adjusted_rand_score(list(kinds), predicted)),
        purity=majority / len(predicted) if predicted else 1.0,
        urls=len(predicted),
        kinds=len(by_kind),
        prototypes=len(fitted.prototypes_),
        split_kinds={k: len(v) for k, v in sorted(by_kind.items()) if len(v) > 1},
        mixed_prototypes={p: sorted(c) for p, c in sorted(by_prototype.items()) if len(c) > 1},
    )
