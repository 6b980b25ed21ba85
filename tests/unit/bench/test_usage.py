"""The process-tree sampler on a real tree: a child that starts a grandchild, both working."""

from __future__ import annotations

import subprocess
import sys

from deepcrawl.bench.usage import TreeSampler

# The grandchild holds 64 MiB of its own and burns CPU; the child waits for it, as Chromium's
# browser process waits for its renderers.
_GRANDCHILD = "b = bytearray(64 * 2**20); b[::4096] = b'x' * len(b[::4096]); sum(range(2 * 10**7))"
_CHILD = (
    "import subprocess, sys, time; sum(range(2 * 10**6)); "
    f"subprocess.run([sys.executable, '-c', {_GRANDCHILD!r}]); time.sleep(0.2)"
)


def test_the_tree_cpu_memory_and_load_are_taken() -> None:
    proc = subprocess.Popen([sys.executable, "-c", _CHILD])
    with TreeSampler(proc.pid, interval_s=0.02) as sampler:
        proc.wait()
    usage = sampler.usage
    assert usage.peak_processes == 2  # the child and its grandchild, seen together
    assert usage.peak_pss_mib > 60  # the grandchild's 64 MiB, touched, are its own
    assert usage.cpu_s > 0.1  # both interpreters' start and their sums, reaped into rusage
    assert usage.samples >= 3
    assert 0 <= usage.load_mean <= usage.load_max
    figures = usage.to_dict()
    assert set(figures) == {
        "cpu_s", "peak_pss_mib", "peak_processes", "samples", "load_mean", "load_max",
    }  # fmt: skip


def test_a_tree_that_has_ended_gives_what_was_sampled() -> None:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    with TreeSampler(proc.pid, interval_s=0.01) as sampler:
        pass  # reaped before the block: nothing of it is seen, nothing is counted twice
    usage = sampler.usage
    assert (usage.peak_processes, usage.peak_pss_mib, usage.cpu_s) == (0, 0.0, 0.0)
    assert usage.samples >= 1
