"""Capture–recapture estimators and the incremental estimate the manager reports."""

from __future__ import annotations

import random

import pytest

from deepcrawl.keywords import CaptureRecapture, CoverageEstimate, chao1, chapman, schnabel


def test_chapman_formula() -> None:
    assert chapman(100, 100, 20) == pytest.approx(101 * 101 / 21 - 1)


def test_chao1_formula_and_floor() -> None:
    # S = 6, f1 = 3, f2 = 2: 6 + 3·2 / (2·3) = 7
    assert chao1([1, 1, 1, 2, 2, 3]) == pytest.approx(7.0)
    assert chao1([5, 4, 3]) == 3  # nobody caught once: nothing unseen


def test_random_captures_are_estimated_well() -> None:
    rng = random.Random(1)
    population = [str(i) for i in range(2000)]
    captures = [rng.sample(population, 150) for _ in range(30)]
    tracker = CaptureRecapture()
    for capture in captures:
        tracker.add(capture)
    for method in ("chao1", "schnabel"):
        value = tracker.value(method)
        assert value is not None
        assert abs(value / 2000 - 1) < 0.05, method
    assert schnabel(captures) == pytest.approx(tracker.value("schnabel"))


def test_incremental_estimate_lifecycle() -> None:
    tracker = CaptureRecapture()
    tracker.add([])  # a query that found nothing caught nobody
    tracker.add(["a", "b", "c"])
    assert tracker.estimate() == CoverageEstimate(3, None, "chao1")
    tracker.add(["c", "d"])
    estimate = tracker.estimate()
    assert estimate.reached == 4
    assert estimate.estimated is not None
    assert estimate.estimated >= 4
    assert estimate.ratio is not None
    assert 0 < estimate.ratio <= 1
    assert "of ~" in str(estimate)
    assert tracker.value("chapman") == pytest.approx(chapman(3, 2, 1))
    assert schnabel([["a"]]) is None
    assert "no estimate yet" in str(CoverageEstimate(3, None, "chao1"))


def test_the_remembered_chao1_estimate_follows_every_capture_and_merge() -> None:
    """Chao's estimate is computed once per change of the counts, and each change shows."""
    capture = CaptureRecapture("chao1")
    capture.add({"a", "b", "c"})
    capture.add({"a", "d"})
    assert capture.value() == chao1(capture.counts.values())  # 4 + 3·2/2 = 7
    capture.add({"b", "c", "d", "e"})
    assert capture.value() == chao1(capture.counts.values())
    before = capture.value()
    capture.merge({"e": "a"})  # one record caught under two ids
    assert capture.value() == chao1(capture.counts.values()) != before
