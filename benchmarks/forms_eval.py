"""Evaluate the form critic on formasaurus's corpus with cross-validation grouped by web page.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/forms_eval.py [--folds 5] [--by page|domain]

Prints, for each model: search-form precision, recall and F1 (search = the form is annotated
"search"; predicted = the model accepts it), the share of login / registration / order forms
accepted as searchable, and the ratio of its F1 to ACHE's decision tree measured in the same
run. Rows:

* ``tree`` / ``forest`` / ``boosting`` / ``logistic`` — the structural searchable classifier
  with each model (ACHE used the tree);
* ``forest+txt`` — the forest over structure and the form's tagged text tokens (the critic's
  searchable classifier);
* ``type-lr`` — the type classifier (structure + text), P(search) >= 0.5;
* ``critic@T`` — the full critic: forest+txt probability >= T, then the safety policy
  (T = 0.5 is the critic's ``SEARCHABLE_THRESHOLD``; other values are shown for the
  precision/recall trade-off, chosen on this same CV, so they are optimistic).

Then the critic's form-type accuracy and how often its query field is the one annotated ``qq``.
Formasaurus's published search-form figures: precision 0.91, recall 0.96.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING

import numpy as np
from sklearn.metrics import precision_recall_fscore_support
from sklearn.model_selection import GroupKFold

from deepcrawl.forms.classifiers import FormTypeClassifier, SearchableFormClassifier
from deepcrawl.forms.corpus import load_corpus
from deepcrawl.forms.critic import FormCritic
from deepcrawl.forms.query_field import find_query_fields

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from deepcrawl.forms.corpus import CorpusForm

PUBLISHED = {"precision": 0.91, "recall": 0.96}
HARMFUL = ("login", "registration", "order")


def _row(name: str, truth: NDArray[np.bool_], accepted: NDArray[np.bool_], types: NDArray[np.str_],
         seconds: float, reference_f1: float | None) -> float:  # fmt: skip
    p, r, f, _ = precision_recall_fscore_support(truth, accepted, average="binary", zero_division=0)
    harmful = np.isin(types, HARMFUL)
    share = float(accepted[harmful].mean())
    ratio = "" if reference_f1 is None else f"{f / reference_f1:8.3f}"
    print(f"{name:11s} {p:9.3f} {r:7.3f} {f:6.3f} {share:12.2%} {seconds:8.1f}s {ratio}")
    return float(f)


def evaluate(corpus: list[CorpusForm], folds: int, by: str, thresholds: list[float]) -> None:
    """Run the grouped cross-validation and print the table."""
    forms = [c.form for c in corpus]
    types = np.array([c.type for c in corpus])
    truth = types == "search"
    groups = [c.page if by == "page" else c.domain for c in corpus]
    splits = list(GroupKFold(n_splits=folds).split(forms, types, groups))
    n_harm = int(np.isin(types, HARMFUL).sum())
    print(f"{len(forms)} forms ({int(truth.sum())} search, {n_harm} login/registration/order) "
          f"on {len({c.page for c in corpus})} pages of {len({c.domain for c in corpus})} "
          f"domains; {folds}-fold CV grouped by {by}")  # fmt: skip
    print(f"{'model':11s} {'precision':>9s} {'recall':>7s} {'F1':>6s} {'bad accepted':>12s} "
          f"{'time':>9s} {'F1/tree':>8s}")  # fmt: skip
    reference: float | None = None
    for model in ("tree", "forest", "boosting", "logistic"):
        start = time.perf_counter()
        accepted = np.zeros(len(forms), dtype=bool)
        for train, test in splits:
            clf = SearchableFormClassifier(model=model).fit([forms[i] for i in train], truth[train])
            accepted[test] = clf.predict([forms[i] for i in test])
        f1 = _row(model, truth, accepted, types, time.perf_counter() - start, reference)
        reference = reference or f1
    start = time.perf_counter()
    accepted = np.zeros(len(forms), dtype=bool)
    for train, test in splits:
        clf = SearchableFormClassifier(model="forest", text=True).fit(
            [forms[i] for i in train], truth[train]
        )
        accepted[test] = clf.predict([forms[i] for i in test])
    _row("forest+txt", truth, accepted, types, time.perf_counter() - start, reference)
    start = time.perf_counter()
    accepted = np.zeros(len(forms), dtype=bool)
    for train, test in splits:
        typer = FormTypeClassifier().fit([forms[i] for i in train], types[train])
        accepted[test] = typer.predict([forms[i] for i in test]) == "search"
    _row("type-lr", truth, accepted, types, time.perf_counter() - start, reference)
    start = time.perf_counter()
    predicted_type = np.empty(len(forms), dtype=object)
    scores = np.zeros(len(forms))
    allowed = np.zeros(len(forms), dtype=bool)
    for train, test in splits:
        # threshold 0: the verdict's reasons are then the policy's alone; thresholds below
        critic = FormCritic(threshold=0.0).fit([forms[i] for i in train], types[train])
        verdicts = critic.judge([forms[i] for i in test])
        for i, verdict in zip(test, verdicts, strict=True):
            scores[i] = verdict.score
            allowed[i] = verdict.searchable
            predicted_type[i] = verdict.type
    seconds = time.perf_counter() - start
    for threshold in thresholds:
        accepted = allowed & (scores >= threshold)
        _row(f"critic@{threshold:.2f}", truth, accepted, types, seconds, reference)
    query_hits = query_total = 0
    for c in corpus:
        wanted = {name for name, code in c.field_types.items() if code == "qq"}
        if c.type == "search" and wanted:
            query_total += 1
            chosen = find_query_fields(c.form).query
            query_hits += bool(chosen and chosen.name in wanted)
    p, r = PUBLISHED["precision"], PUBLISHED["recall"]
    print(f"Formasaurus published: precision {p:.2f}, recall {r:.2f}, F1 {2 * p * r / (p + r):.3f}")
    print(f"critic form-type accuracy: {float((predicted_type == types).mean()):.3f}")
    print(f"query field = annotated 'qq' field: {query_hits}/{query_total} "
          f"({query_hits / max(query_total, 1):.3f}) of annotated search forms")  # fmt: skip


def main() -> None:
    """Parse the command line and run the evaluation."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--by", choices=("page", "domain"), default="page")
    parser.add_argument(
        "--thresholds",
        type=float,
        nargs="+",
        default=[0.5, 0.4],
        help="critic score thresholds to report (the default setting is 0.5)",
    )
    args = parser.parse_args()
    start = time.perf_counter()
    corpus = load_corpus()
    print(f"corpus parsed in {time.perf_counter() - start:.1f}s")
    evaluate(corpus, args.folds, args.by, args.thresholds)


if __name__ == "__main__":
    main()
