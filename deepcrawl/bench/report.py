"""Show bench results: a rich table, JSON, and a PNG plot of record recall against requests."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text

from deepcrawl.bench.plotting import pyplot

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from deepcrawl.bench.real import RealRun
    from deepcrawl.bench.runner import BenchRun
    from deepcrawl.bench.zoo import ZooRun

__all__ = [
    "real_prototypes_table",
    "real_runs_to_json",
    "real_speed_table",
    "real_table",
    "runs_table",
    "runs_to_json",
    "write_plot",
    "zoo_runs_to_json",
    "zoo_table",
]


def runs_table(runs: Sequence[BenchRun]) -> Table:
    """One row per (site, strategy) with the figures of docs/ARCHITECTURE.md, "Measures"."""
    table = Table(title="deepcrawl bench", title_justify="left")
    for column in ("site", "strategy"):
        table.add_column(column)
    for column in ("records", "recall", "harvest", "requests", "KiB", "s", "pages/s", "MiB"):
        table.add_column(column, justify="right")
    table.add_column("top request kinds")
    for run in runs:
        top = sorted(run.requests_by_kind.items(), key=lambda kv: -kv[1])[:4]
        table.add_row(
            run.site,
            run.strategy,
            f"{run.records_fetched}/{run.records}",
            f"{run.recall:.3f}",
            f"{run.harvest_rate:.3f}",
            str(run.requests),
            f"{run.bytes / 1024:.0f}",
            f"{run.wall_s:.1f}",
            f"{run.pages_per_s:.0f}",
            f"{run.peak_rss_mb:.0f}",
            ", ".join(f"{k} {v}" for k, v in top),
        )
    return table


def runs_to_json(runs: Sequence[BenchRun]) -> str:
    """The runs as a JSON array (curves included)."""
    return json.dumps([run.to_dict() for run in runs], indent=2)


def write_plot(runs: Sequence[BenchRun], path: Path) -> Path:
    """Plot record recall against requests sent, one panel per site, one line per strategy.

    Raises:
        ConfigError: matplotlib is not installed (``pip install 'deepcrawl[plot]'``).
    """
    plt = pyplot()
    sites = list(dict.fromkeys(run.site for run in runs))
    fig, axes = plt.subplots(1, len(sites), figsize=(5 * len(sites), 4), squeeze=False)
    for ax, site in zip(axes[0], sites, strict=True):
        for run in (r for r in runs if r.site == site):
            xs = [0] + [x for x, _ in run.curve]
            ys = [0.0] + [y for _, y in run.curve]
            ax.step(xs, ys, where="post", label=run.strategy)
        ax.set_title(site)
        ax.set_xlabel("requests sent")
        ax.set_ylabel("record recall")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def real_table(runs: Sequence[RealRun]) -> Table:
    """One row per real site: deepcrawl's figures, then the breadth-first baseline's (the
    reference client's figures are in :func:`real_speed_table`)."""
    table = Table(title="deepcrawl bench --suite real", title_justify="left")
    table.add_column("site")
    for column in ("records", "recall", "precision", "harvest", "docs", "assets"):
        table.add_column(column, justify="right")
    table.add_column("search/other", justify="right")
    table.add_column("stop")
    table.add_column("s", justify="right")
    for column in ("bfs recall", "bfs harvest", "bfs docs", "like F1"):
        table.add_column(column, justify="right")
    auto = any(run.crawler == "deepcrawl-auto" for run in runs)
    if auto:
        table.add_column("pick = like")
    baselines = {run.site: run for run in runs if run.crawler == "bfs"}
    for run in runs:
        if run.crawler not in ("deepcrawl", "deepcrawl-auto"):
            continue  # the baseline fills its columns; the reference is in the speed table
        s = run.score
        base = baselines.get(run.site) if run.crawler == "deepcrawl" else None
        pick = "-"
        if run.crawler == "deepcrawl-auto":
            pick = (
                "nothing" if run.picked is None else "yes" if run.picked["same_as_like"] else "no"
            )
        table.add_row(
            run.site if run.crawler == "deepcrawl" else f"{run.site} (no example)",
            f"{s.records_delivered}/{s.records}",
            f"{s.recall:.3f}",
            f"{s.precision:.3f}",
            f"{s.harvest:.3f}",
            str(s.documents),
            str(s.assets),
            f"{s.searches}/{s.other_submissions}",
            run.stop,
            f"{run.wall_s:.0f}",
            f"{base.score.recall:.3f}" if base else "-",
            f"{base.score.harvest:.3f}" if base else "-",
            str(base.score.documents) if base else "-",
            f"{base.prototypes.f1:.3f}" if base and base.prototypes else "-",
            *([pick] if auto else []),
        )
    return table


def real_prototypes_table(runs: Sequence[RealRun]) -> Table:
    """One row per real site: ``prototypes --like`` over the baseline's URL list, with the
    evidence its answer rests on, the sibling prototypes it widened to and its requests."""
    table = Table(title="--like prototype over a breadth-first URL list", title_justify="left")
    table.add_column("site")
    for column in ("URLs", "record URLs", "records", "members", "precision", "recall", "F1"):
        table.add_column(column, justify="right")
    table.add_column("evidence", overflow="fold")
    table.add_column("widened", justify="right")
    table.add_column("requests", justify="right")
    table.add_column("prototype", overflow="fold")
    for run in runs:
        f = run.prototypes
        if f is None:
            continue
        table.add_row(
            run.site,
            str(f.urls),
            str(f.record_urls),
            str(f.records),
            str(f.members),
            f"{f.precision:.3f}",
            f"{f.recall:.3f}",
            f"{f.f1:.3f}",
            Text(f.evidence),
            str(f.widened),
            str(f.requests),
            Text(f.regex or "(none matches the example)"),  # a regex is no markup
        )
    return table


def real_speed_table(runs: Sequence[RealRun]) -> Table:
    """One row per crawl whose process tree was measured: its time, speed, CPU and memory, and
    beside each, where a reference client ran, the reference's figure (``ref``) and the ratio."""
    table = Table(
        title="speed: the crawl beside plain HTTP over the record pages", title_justify="left"
    )
    table.add_column("site")
    for column in (
        "s", "ref s", "ratio", "pages/s", "ref pages/s", "CPU ms/page", "ref CPU ms/page",
        "ratio", "peak PSS MiB", "ref PSS MiB", "load", "ref load",
    ):  # fmt: skip
        table.add_column(column, justify="right")
    for run in runs:
        usage, versus = run.usage, run.versus_reference
        if run.crawler != "deepcrawl" or usage is None:
            continue
        pages = run.score.delivered
        table.add_row(
            run.site,
            f"{run.wall_s:.0f}",
            f"{versus.reference_wall_s:.0f}" if versus else "-",
            _ratio(versus.wall_ratio if versus else None),
            _number(pages / run.wall_s if run.wall_s else None),
            _number(versus.reference_pages_per_s if versus else None),
            _number(1000 * usage.cpu_s / pages if pages else None),
            _number(versus.reference_cpu_ms_per_page if versus else None),
            _ratio(versus.cpu_ratio if versus else None),
            f"{usage.peak_pss_mib:.0f}",
            f"{versus.reference_peak_pss_mib:.0f}" if versus else "-",
            f"{usage.load_mean:.1f}",
            f"{versus.reference_load:.1f}" if versus else "-",
        )
    return table


def _ratio(value: float | None) -> str:
    return f"{value:.2f}×" if value is not None else "-"


def _number(value: float | None) -> str:
    return f"{value:.1f}" if value is not None else "-"


def real_runs_to_json(runs: Sequence[RealRun]) -> str:
    """The real-site runs as a JSON array, one object per (site, crawler)."""
    return json.dumps([run.to_dict() for run in runs], indent=2)


def zoo_table(runs: Sequence[ZooRun]) -> Table:
    """One row per zoo seed, then a row of the seeds that meet each bar
    (:data:`~deepcrawl.bench.zoo.BARS`)."""
    from deepcrawl.bench.zoo import zoo_summary

    crawlers = sorted({run.crawler for run in runs})
    table = Table(
        title=f"deepcrawl bench --suite zoo ({', '.join(crawlers)})", title_justify="left"
    )
    table.add_column("seed", justify="right")
    for column in ("records", "recall", "harvest", "docs/rec", "precision", "claimed", "size"):
        table.add_column(column, justify="right")
    table.add_column("stop")
    table.add_column("s", justify="right")
    for run in runs:
        error = run.size_error
        passes = run.passes()
        table.add_row(
            str(run.seed),
            f"{run.records_delivered}/{run.records}",
            _marked(f"{run.recall:.3f}", passes["recall"]),
            _marked(f"{run.harvest:.3f}", passes["harvest"]),
            _number(run.documents_per_record),
            _marked(f"{run.precision:.3f}", passes["precision"]),
            _marked("yes" if run.claimed_complete else "no", passes["claim_true"]),
            _marked("-" if error is None else f"{error:+.0%}", passes["size"]),
            _marked(run.stop[:90], passes["stopped"]),
            f"{run.wall_s:.0f}",
        )
    summary = zoo_summary(runs)
    met, total = summary["met"], summary["runs"]
    table.add_section()
    table.add_row(
        "met",
        "",
        f"{met['recall']}/{total}",
        f"{met['harvest']}/{total}",
        "",
        f"{met['precision']}/{total}",
        f"{met['claim_true']}/{total} true",
        f"{met['size']}/{total}",
        f"{met['stopped']}/{total} stopped by themselves",
        "",
    )
    return table


def zoo_runs_to_json(runs: Sequence[ZooRun]) -> str:
    """The zoo runs and their summary as JSON (``bench-zoo.json``)."""
    from deepcrawl.bench.zoo import zoo_summary

    return json.dumps(
        {"runs": [run.to_dict() for run in runs], "summary": zoo_summary(runs)}, indent=2
    )


def _marked(text: str, ok: bool) -> Text:
    """``text``, red where its bar is missed."""
    return Text(text, style="" if ok else "red")
