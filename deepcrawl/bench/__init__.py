"""Evaluation: run crawl strategies against local fixture sites and measure them.

See :func:`run_bench` for the figures and how they are taken.
"""

from deepcrawl.bench.memory import PeakMemory
from deepcrawl.bench.report import runs_table, runs_to_json, write_plot
from deepcrawl.bench.runner import BenchRun, CountingFetcher, run_bench

__all__ = [
    "BenchRun",
    "CountingFetcher",
    "PeakMemory",
    "run_bench",
    "runs_table",
    "runs_to_json",
    "write_plot",
]
