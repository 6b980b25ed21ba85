"""Evaluation: run crawl strategies against local fixture sites and measure them.

See :func:`run_bench` for the figures and how they are taken.
"""

from deepcrawl.bench.memory import PeakMemory
from deepcrawl.bench.real import RealRun, real_site_names, run_real_bench
from deepcrawl.bench.report import (
    real_prototypes_table,
    real_runs_to_json,
    real_speed_table,
    real_table,
    runs_table,
    runs_to_json,
    write_plot,
    zoo_runs_to_json,
    zoo_table,
)
from deepcrawl.bench.runner import BenchRun, CountingFetcher, run_bench
from deepcrawl.bench.strategy import DeepcrawlStrategy  # registers the "deepcrawl" strategy
from deepcrawl.bench.zoo import ZooRun, parse_seeds, run_zoo_bench, write_zoo_plot

__all__ = [
    "BenchRun",
    "CountingFetcher",
    "DeepcrawlStrategy",
    "PeakMemory",
    "RealRun",
    "ZooRun",
    "parse_seeds",
    "real_prototypes_table",
    "real_runs_to_json",
    "real_site_names",
    "real_speed_table",
    "real_table",
    "run_bench",
    "run_real_bench",
    "run_zoo_bench",
    "runs_table",
    "runs_to_json",
    "write_plot",
    "write_zoo_plot",
    "zoo_runs_to_json",
    "zoo_table",
]
