"""``deepcrawl bench --suite zoo``: the crawl on generated search engines, one per seed.

The zoo fixture (``deepcrawl_fixtures.zoo``) draws each seed's search engine at random from the
mechanisms the web uses — ranking, kinds mixed into the results, totals, pagers, the query
language, the form, robots.txt, where the search is, URL syntax, rendering, size. For each seed:

1. the seed's site is served on 127.0.0.1 (``deepcrawl serve-fixture zoo --seed N``);
2. ``deepcrawl crawl START --like RECORD`` (one record of the seed's truth), or with
   ``example=False`` ``deepcrawl crawl START --auto`` (the start URL alone), runs as a child
   process under a wall-time cap (``bench.zoo_timeout_s``); a crawl that does not stop by
   itself is killed and said so; one whose error line tells its user to crawl with a flag
   (``--navigate``, where robots.txt forbids the search: :data:`FOLLOWED_ADVICE`) runs again
   with it, as the user would, its requests counted with the first's;
3. its delivered pages, its ``stats.json`` (the stop, the claim of completeness, the size it
   reported) and the server's count give a :class:`ZooRun`, scored against the seed's truth.

:func:`zoo_summary` counts the seeds that meet each bar of the suite (:data:`BARS`);
:func:`write_zoo_plot` draws recall by the value of each dimension, so that a weak dimension
shows at a glance. The fixtures are no part of the installed product: they are imported when a
bench runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deepcrawl.bench.child import crawl_stop, delivered_urls, wait_capped
from deepcrawl.bench.plotting import pyplot
from deepcrawl.errors import ConfigError, FixtureError
from deepcrawl.settings import override_args

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from deepcrawl_fixtures.truth import GroundTruth

    from deepcrawl.settings import Settings

__all__ = [
    "BARS",
    "BARS_MET",
    "ZooRun",
    "describe",
    "parse_seeds",
    "run_zoo_bench",
    "write_zoo_plot",
    "zoo_summary",
]

#: The suite's bars, per seed: recall, harvest (with its lower bar where the widget fetches a
#: data file per result shown), delivery precision, and the reported size's relative error.
BARS = {"recall": 0.98, "harvest": 0.8, "harvest_data_files": 0.4, "precision": 0.99, "size": 0.25}

#: The names of :meth:`ZooRun.passes`, in the order the table shows them.
BARS_MET = ("recall", "harvest", "precision", "stopped", "claim_true", "size")

#: Server page kinds that are no document a user asked for (the fixture's scripts and styles).
_ASSET_KINDS = frozenset({"asset"})


@dataclass(frozen=True)
class ZooRun:
    """The figures of one crawl of one zoo seed."""

    seed: int
    crawler: str
    """``like`` (with one record of the seed as the example) or ``auto`` (the start URL alone)."""
    records: int
    """Records of the seed's truth."""
    records_delivered: int
    """Distinct records among the pages delivered (a near-duplicate counts as its record)."""
    delivered: int
    """Pages delivered."""
    on_record: int
    """Pages delivered that show a record."""
    documents: int
    """Requests the server answered, its scripts and styles aside."""
    stop: str
    """The crawl's status and stop reason, ``killed after N s`` or an exit status."""
    stopped: bool
    """The crawl stopped by itself (it was not killed and exited 0)."""
    claimed_complete: bool
    """``stats.json``'s ``complete``: the crawl said it holds every record."""
    reported_size: float | None
    """The size the crawl reported (``records_estimated``, else the records it reached)."""
    wall_s: float
    data_files: bool = False
    """The seed's widget fetches a data file per result shown (the lower harvest bar)."""
    config: dict[str, str] = field(default_factory=dict)
    """The seed's drawn configuration, dimension -> value."""
    followed: str = ""
    """The flag the first crawl's error line advised and a second crawl followed, or ``""``."""

    @property
    def recall(self) -> float:
        return self.records_delivered / self.records if self.records else 0.0

    @property
    def harvest(self) -> float:
        return self.records_delivered / self.documents if self.documents else 0.0

    @property
    def precision(self) -> float:
        return self.on_record / self.delivered if self.delivered else 1.0

    @property
    def documents_per_record(self) -> float | None:
        return self.delivered / self.records_delivered if self.records_delivered else None

    @property
    def size_error(self) -> float | None:
        """The reported size's error relative to the truth (None when none was reported)."""
        if self.reported_size is None or not self.records:
            return None
        return (self.reported_size - self.records) / self.records

    def passes(self) -> dict[str, bool]:
        """Which bars of :data:`BARS` the run meets, and whether its claim is true."""
        harvest_bar = BARS["harvest_data_files"] if self.data_files else BARS["harvest"]
        error = self.size_error
        return {
            "recall": self.recall >= BARS["recall"],
            "harvest": self.harvest >= harvest_bar,
            "precision": self.precision >= BARS["precision"],
            "stopped": self.stopped,
            "claim_true": not self.claimed_complete or self.recall >= BARS["recall"],
            "size": error is not None and abs(error) <= BARS["size"],
        }

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures, the derived ones and the bars met included."""
        return {
            **asdict(self),
            "recall": round(self.recall, 4),
            "harvest": round(self.harvest, 4),
            "precision": round(self.precision, 4),
            "documents_per_record": self.documents_per_record,
            "size_error": self.size_error,
            "passes": self.passes(),
        }


def parse_seeds(spec: str) -> list[int]:
    """``1-40``, ``7`` or ``1,3,10-12`` as a list of seeds, in order, each once.

    Raises:
        ConfigError: the spec is no list of non-negative seeds and ranges (the message names it).
    """
    seeds: dict[int, None] = {}
    for part in (p.strip() for p in spec.split(",")):
        low, dash, high = part.partition("-")
        try:
            first, last = int(low), int(high) if dash else int(low)
        except ValueError:
            first = last = -1
        if first < 0 or last < first:
            raise ConfigError(f"--seeds {spec!r}: expected seeds and ranges such as 1-40 or 1,3,7")
        seeds.update(dict.fromkeys(range(first, last + 1)))
    return list(seeds)


def run_zoo_bench(
    seeds: Sequence[int],
    settings: Settings,
    *,
    example: bool = True,
    records: int | None = None,
    out: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[ZooRun]:
    """Crawl every seed's search engine once; a :class:`ZooRun` each.

    Args:
        seeds: the zoo's seeds.
        settings: the bench's settings (``bench.zoo_timeout_s``); the crawl runs with the
            bench's ``--set`` assignments.
        example: crawl with one record of the seed as ``--like``; False: the start URL alone
            (``--auto``).
        records: the records of every seed (None: the size each seed draws).
        out: a folder kept for each crawl's pages, stats and log (``out/seed-N/``); a
            temporary one when None.
        progress: called with one line per crawl.

    Raises:
        FixtureError: the fixtures are not installed, or a seed's site would not start.
    """
    say = progress or (lambda _msg: None)
    runs: list[ZooRun] = []
    with tempfile.TemporaryDirectory(prefix="deepcrawl-zoo-") as scratch:
        root = out or Path(scratch)
        for seed in seeds:
            folder = root / f"seed-{seed}"
            shutil.rmtree(folder, ignore_errors=True)  # a fresh crawl, never a resumed one
            folder.mkdir(parents=True)
            config = describe(seed, records)
            say(f"seed {seed}: " + ", ".join(f"{k}={v}" for k, v in config.items()))
            runs.append(_crawl_seed(seed, settings, folder, example=example, records=records))
    return runs


def _config(seed: int, records: int | None) -> Any:
    """The seed's drawn configuration (``deepcrawl_fixtures.zoo.ZooConfig``), ``records``
    forced where given."""
    try:
        from deepcrawl_fixtures.zoo import ZooConfig
    except ImportError as exc:
        raise FixtureError(
            "the zoo of search engines is not installed: pip install -e fixtures (from a source "
            "checkout)"
        ) from exc
    return ZooConfig.draw(seed) if records is None else ZooConfig.draw(seed, records=records)


def describe(seed: int, records: int | None = None) -> dict[str, str]:
    """The seed's configuration, dimension -> value (as ``serve-fixture zoo --describe``)."""
    return _dimensions(_config(seed, records))


def _dimensions(config: Any) -> dict[str, str]:
    """A drawn configuration's dimensions, name -> value as ``describe()`` writes them."""
    return dict(line.split(": ", 1) for line in config.describe() if not line.startswith("seed: "))


def _crawl_seed(
    seed: int, settings: Settings, folder: Path, *, example: bool, records: int | None
) -> ZooRun:
    """Serve ``seed``, run the crawl as a child under the cap and score it."""
    from deepcrawl_fixtures import FixtureServer

    config = _config(seed, records)
    (folder / "crawl.log").unlink(missing_ok=True)
    with FixtureServer("zoo", seed=seed, records=config.records) as site:
        truth = site.truth()
        how = ["--like", site.url + _example(truth)] if example else ["--auto"]
        started = time.perf_counter()
        killed, code = _run_crawl(site.url + "/", how, folder, settings.bench.zoo_timeout_s)
        followed = _advice(folder / "crawl" / "stats.json") if not killed and code else None
        if followed is not None:  # the user does what the crawl's last line tells them
            killed, code = _run_crawl(
                site.url + "/", [*how, followed], folder, settings.bench.zoo_timeout_s
            )
        wall = round(time.perf_counter() - started, 1)
        counted = site.stats(log=False)["by_kind"]
    stats_path = folder / "crawl" / "stats.json"
    stats = json.loads(stats_path.read_text()) if stats_path.exists() else {}
    delivered = delivered_urls(folder / "crawl" / "pages.jsonl")
    shown = [truth.record_of(url) for url in delivered]
    reported = stats.get("records_estimated")
    if reported is None and stats.get("complete"):
        reported = stats.get("records_reached")
    return ZooRun(
        seed=seed,
        crawler="like" if example else "auto",
        records=len(truth.detail_paths),
        records_delivered=len({r for r in shown if r is not None}),
        delivered=len(delivered),
        on_record=sum(r is not None for r in shown),
        documents=sum(n for kind, n in counted.items() if kind not in _ASSET_KINDS),
        stop=(f"with {followed}: " if followed else "")
        + (
            f"killed after {settings.bench.zoo_timeout_s:.0f} s"
            if killed
            else crawl_stop(folder, "crawl", code)
        ),
        stopped=not killed and code == 0,
        claimed_complete=bool(stats.get("complete")),
        reported_size=None if reported is None else float(reported),
        wall_s=wall,
        # a page drawn by a script fetches its entries as data besides the page itself
        data_files=config.rendering == "script",
        config=_dimensions(config),
        followed=followed or "",
    )


#: The flags a crawl's error line may advise, which the bench then follows as a user would:
#: ``--navigate`` where robots.txt forbids the search and allows lists (``crawler.forbidden``).
FOLLOWED_ADVICE = ("--navigate",)


def _run_crawl(start: str, how: Sequence[str], folder: Path, cap_s: float) -> tuple[bool, int]:
    """Run ``deepcrawl crawl START HOW…`` as a child into ``folder`` (afresh: its output and
    database go), under the wall-time cap; (whether it was killed, its exit status)."""
    from deepcrawl_fixtures.real.process import python_env

    shutil.rmtree(folder / "crawl", ignore_errors=True)
    (folder / "crawl.db").unlink(missing_ok=True)
    cmd = [
        *(sys.executable, "-m", "deepcrawl", *override_args(), "crawl", start, *how),
        *("--out", str(folder / "crawl"), "--db", f"sqlite:///{folder / 'crawl.db'}"),
    ]
    with (folder / "crawl.log").open("a") as log:
        log.write(f"$ deepcrawl crawl {start} {' '.join(how)}\n")
        log.flush()
        # python_env: the checkout's own code, whatever the working directory
        proc = subprocess.Popen(cmd, cwd=folder, env=python_env(), stdout=log,
                                stderr=subprocess.STDOUT, start_new_session=True)  # fmt: skip
        killed = wait_capped(proc, cap_s)
    return killed, proc.returncode


def _advice(stats_path: Path) -> str | None:
    """The flag of :data:`FOLLOWED_ADVICE` a failed crawl's error line tells its user to crawl
    with (``crawl with --navigate to reach the records …``); None where it names none."""
    if not stats_path.exists():
        return None
    error = str(json.loads(stats_path.read_text()).get("error") or "")
    return next((flag for flag in FOLLOWED_ADVICE if f"crawl with {flag}" in error), None)


def _example(truth: GroundTruth) -> str:
    """The seed's example: the record in the middle of its truth (no first or last record,
    which a ranking by key would list first)."""
    paths = truth.detail_paths
    if not paths:
        raise FixtureError("the seed's site has no record to give as an example")
    return paths[len(paths) // 2]


def zoo_summary(runs: Sequence[ZooRun]) -> dict[str, Any]:
    """How many runs meet each bar (``passes``), of how many, and the seeds that miss each."""
    bars = list(BARS_MET)
    met = {bar: [run.seed for run in runs if run.passes()[bar]] for bar in bars}
    return {
        "runs": len(runs),
        "met": {bar: len(seeds) for bar, seeds in met.items()},
        "missed": {bar: [run.seed for run in runs if not run.passes()[bar]] for bar in bars},
        "false_claims": [run.seed for run in runs if not run.passes()["claim_true"]],
    }


def write_zoo_plot(runs: Sequence[ZooRun], path: Path) -> Path:
    """Recall by dimension value: one panel per dimension of the seeds' configurations, one
    bar per value (the mean recall of its seeds, their count above it) and each seed a dot.

    Raises:
        ConfigError: matplotlib is not installed (``pip install 'deepcrawl[plot]'``).
    """
    plt = pyplot()
    dimensions = list(dict.fromkeys(d for run in runs for d in run.config))
    columns = 4
    rows = max(1, -(-len(dimensions) // columns))
    fig, axes = plt.subplots(rows, columns, figsize=(4.5 * columns, 3.2 * rows), squeeze=False)
    for ax in axes.flat[len(dimensions) :]:
        ax.set_visible(False)
    for ax, dimension in zip(axes.flat, dimensions, strict=False):
        by_value: dict[str, list[float]] = {}
        for run in runs:
            value = run.config.get(dimension, "?")
            by_value.setdefault(_band(value) if value.isdigit() and dimension == "records"
                                else value, []).append(run.recall)  # fmt: skip
        values = sorted(by_value)
        means = [sum(by_value[v]) / len(by_value[v]) for v in values]
        ax.bar(range(len(values)), means, color="#9ecae1")
        for i, value in enumerate(values):
            ax.plot([i] * len(by_value[value]), by_value[value], "k.", alpha=0.5)
            ax.text(i, 1.03, str(len(by_value[value])), ha="center", fontsize=7)
        ax.set_xticks(range(len(values)), [v[:14] for v in values], rotation=35, fontsize=7,
                      ha="right")  # fmt: skip
        ax.set_ylim(0, 1.1)
        ax.axhline(BARS["recall"], color="r", linewidth=0.8, linestyle="--")
        ax.set_title(dimension, fontsize=9)
        ax.set_ylabel("record recall", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _band(records: str) -> str:
    """A size drawn on a continuous scale, as one of three bands (a bar each)."""
    n = int(records)
    return "<500" if n < 500 else "500-1999" if n < 2000 else ">=2000"
