"""The worker processes a harvest starts: one that dies is started again, a few times at most."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.harvest.coordinator import _WORKER_RESTARTS, Harvest
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from pathlib import Path


class _Proc:
    """A worker process as the coordinator sees it: its pid and what ``poll`` answers."""

    def __init__(self, pid: int, code: int | None = None) -> None:
        self.pid = pid
        self.code = code

    def poll(self) -> int | None:
        return self.code


class _Spawner:
    """Stands in for ``Harvest._spawn_worker``: the numbers it was called with, and a fake
    process each time, ended with ``code`` (None: alive)."""

    def __init__(self, code: int | None = None) -> None:
        self.code = code
        self.spawned: list[int] = []

    def __call__(self, n: int) -> _Proc:
        self.spawned.append(n)
        return _Proc(100 + len(self.spawned), self.code)


def _harvest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int,
             spawner: _Spawner) -> Harvest:  # fmt: skip
    harvest = Harvest([], load_settings(), out=tmp_path, workers=workers)
    monkeypatch.setattr(harvest, "_spawn_worker", spawner)
    harvest._start_workers()
    return harvest


def test_a_worker_killed_by_a_signal_is_started_again_and_the_others_are_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawner = _Spawner()
    harvest = _harvest(tmp_path, monkeypatch, 2, spawner)
    assert spawner.spawned == [0, 1]
    first, second = harvest._procs
    harvest._mind_workers()
    assert spawner.spawned == [0, 1], "live workers are left alone"
    first.code = -9  # type: ignore[attr-defined]  # SIGKILL
    harvest._mind_workers()
    assert spawner.spawned == [0, 1, 0]
    assert harvest._procs[0] is not first
    assert harvest._procs[1] is second


def test_a_worker_stopped_on_purpose_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawner = _Spawner(code=0)
    harvest = _harvest(tmp_path, monkeypatch, 1, spawner)
    harvest._mind_workers()
    assert spawner.spawned == [0]


def test_a_worker_that_keeps_dying_is_given_up_after_its_restarts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawner = _Spawner(code=1)
    harvest = _harvest(tmp_path, monkeypatch, 1, spawner)
    for _ in range(_WORKER_RESTARTS + 3):
        harvest._mind_workers()
    assert len(spawner.spawned) == 1 + _WORKER_RESTARTS
