"""The Results page, drawn from the JSON files ``deepcrawl bench`` wrote: tables and plots.

Every ``*.json`` of ``docs/results/data/`` is one bench run; ``index.toml`` beside them says,
for each file, which suite it is, the command that wrote it, the commit and the machine's load
(measured figures mean little without them). A file of a suite this page knows is drawn its
own way — ``fixtures`` (``deepcrawl bench --out DIR``'s ``bench.json``), ``real``
(``deepcrawl bench --suite real --out DIR``'s ``bench-real.json``) —, and a file of any other
suite (the zoo's, say) as a table of its runs' plain fields, so a new suite's JSON is on the
page the day it is committed. Nothing here is typed in by hand: a bench run again, its JSON
copied over, and the page follows.
"""

from __future__ import annotations

import io
import json
import tomllib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Bench", "benches", "plots", "results_markdown"]

#: The columns of a suite this page does not know: the plain fields its runs share, at most.
GENERIC_COLUMNS = 10
#: A list longer than this is folded away under its title.
FOLD_AFTER = 6


@dataclass
class Bench:
    """One bench file and where it came from."""

    path: Path
    suite: str
    title: str
    about: dict[str, str] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def stem(self) -> str:
        return self.path.stem


def benches(data: Path) -> list[Bench]:
    """The bench files of ``data``: those ``index.toml`` lists, in its order, then the others.

    Raises:
        ValueError: a file is no JSON list of runs, or the index names a file that is missing.
    """
    index_file = data / "index.toml"
    listed = (
        tomllib.loads(index_file.read_text("utf-8")).get("file", []) if index_file.is_file() else []
    )
    found: list[Bench] = []
    seen: set[str] = set()
    for entry in listed:
        path = data / entry["name"]
        if not path.is_file():
            raise ValueError(f"{index_file}: {entry['name']} is listed but missing")
        about = {k: str(v) for k, v in entry.items() if k not in {"name", "suite", "title"}}
        found.append(
            Bench(path, entry.get("suite", _suite(path)), entry.get("title", path.stem), about)
        )
        seen.add(path.name)
    found += [
        Bench(p, _suite(p), p.stem) for p in sorted(data.glob("*.json")) if p.name not in seen
    ]
    for bench in found:
        runs = json.loads(bench.path.read_text("utf-8"))
        if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
            raise ValueError(f"{bench.path}: not a JSON list of bench runs")
        bench.runs = runs
    return found


def _suite(path: Path) -> str:
    for suite in ("fixtures", "real"):
        if path.stem.startswith(suite):
            return suite
    return path.stem.split("-")[0]


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
    if value is None:
        return "–"
    return " ".join(str(value).split()).replace("|", "\\|")


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_fmt(cell) for cell in row) + " |" for row in rows]
    return [*lines, ""]


def _provenance(bench: Bench) -> list[str]:
    about = bench.about
    lines = []
    if "command" in about:
        lines += ["```console", f"$ {about['command']}", "```", ""]
    facts = [
        f"{key}: {about[key]}" for key in ("commit", "measured", "load", "machine") if key in about
    ]
    facts.append(f"data: [{bench.path.name}](data/{bench.path.name})")
    lines += ["; ".join(facts) + ".", ""]
    if "note" in about:
        lines += [about["note"], ""]
    return lines


def _fixtures(bench: Bench) -> list[str]:
    rows = []
    for run in bench.runs:
        records, fetched, requests = run["records"], run["records_fetched"], run["requests"]
        rows.append([
            run["site"], run["strategy"], f"{fetched}/{records}", fetched / records,
            fetched / max(1, requests), requests, run["wall_s"],
            round(run["pages_fetched"] / max(run["wall_s"], 1e-9)), run.get("peak_rss_mb"),
        ])  # fmt: skip
    header = ["site", "strategy", "records", "recall", "harvest", "requests", "s", "pages/s",
              "MiB"]  # fmt: skip
    lines = _table(header, rows)
    went = []
    for run in bench.runs:
        kinds = sorted(run.get("requests_by_kind", {}).items(), key=lambda kv: -kv[1])[:3]
        shown = ", ".join(f"{kind} {count}" for kind, count in kinds)
        went.append(f"- {run['site']}, {run['strategy']}: {shown}")
    lines += _folded("Where the requests went (the three largest kinds the server counted)", went)
    if any(run.get("curve") for run in bench.runs):
        plot = f"{bench.stem}-recall.png"
        lines += [f"![Record recall against requests, per site and strategy]({plot})", ""]
    return lines


def _real(bench: Bench) -> list[str]:
    rows = [
        [
            run["site"], run["crawler"],
            f"{run.get('records_delivered', run.get('records_fetched'))}/{run['records']}",
            run.get("recall"), run.get("precision"), run.get("harvest"),
            run.get("documents"), run.get("searches"), run.get("wall_s"),
            (run.get("usage") or {}).get("load_mean"),
        ]
        for run in bench.runs
    ]  # fmt: skip
    header = ["site", "crawler", "records", "recall", "precision", "harvest", "documents",
              "searches", "s", "load"]  # fmt: skip
    lines = _table(header, rows)
    ended = [f"- {run['site']}, {run['crawler']}: {_fmt(run.get('stop'))}" for run in bench.runs]
    lines += _folded("How each run ended", ended)
    speed = [run for run in bench.runs if run.get("versus_reference")]
    if speed:
        lines += ["Speed against plain HTTP (httpx + lxml fetching the same record pages "
                  "through the same proxy, in the same run):", ""]  # fmt: skip
        lines += _table(
            ["site", "crawl s", "plain HTTP s", "wall ratio", "crawl CPU ms/page",
             "plain HTTP CPU ms/page", "CPU ratio", "crawl peak MiB", "load"],
            [[r["site"], v["crawl_wall_s"], v["reference_wall_s"], v["wall_ratio"],
              v["crawl_cpu_ms_per_page"], v["reference_cpu_ms_per_page"], v["cpu_ratio"],
              v["crawl_peak_pss_mib"], v.get("crawl_load")]
             for r in speed for v in [r["versus_reference"]]],
        )  # fmt: skip
    if len({run["crawler"] for run in bench.runs}) > 1:
        lines += [
            f"![Record recall and harvest rate per site and crawler]({bench.stem}-sites.png)",
            "",
        ]
    return lines


def _folded(title: str, items: list[str]) -> list[str]:
    """``items`` under ``title``, folded away (a details block) when there are many."""
    if len(items) <= FOLD_AFTER:
        return [f"{title}:", "", *items, ""]
    return [f'??? note "{title}"', "", *(f"    {item}" for item in items), ""]


def _generic(bench: Bench) -> list[str]:
    plain = [
        key
        for key in dict.fromkeys(k for run in bench.runs for k in run)
        if all(not isinstance(run.get(key), dict | list) for run in bench.runs)
    ][:GENERIC_COLUMNS]
    return _table(plain, [[run.get(key) for key in plain] for run in bench.runs])


def results_markdown(data: Path) -> str:
    """The generated part of the Results page: one section per bench file."""
    found = benches(data)
    if not found:
        return "No bench file in `docs/results/data/` yet.\n"
    parts: list[str] = []
    for bench in found:
        parts += [f"## {bench.title}", "", *_provenance(bench)]
        draw = {"fixtures": _fixtures, "real": _real}.get(bench.suite, _generic)
        parts += draw(bench)
    return "\n".join(parts)


def plots(data: Path) -> dict[str, bytes]:
    """The results' plots as PNG bytes, by file name (``STEM-recall.png``, ``STEM-sites.png``)."""
    found = [bench for bench in benches(data) if bench.suite in ("fixtures", "real")]
    if not found:
        return {}
    import matplotlib

    matplotlib.use("Agg")
    drawn: dict[str, bytes] = {}
    for bench in found:
        if bench.suite == "fixtures" and any(run.get("curve") for run in bench.runs):
            drawn[f"{bench.stem}-recall.png"] = _recall_plot(bench)
        if bench.suite == "real" and len({run["crawler"] for run in bench.runs}) > 1:
            drawn[f"{bench.stem}-sites.png"] = _sites_plot(bench)
    return drawn


def _png(figure: Any) -> bytes:
    import matplotlib.pyplot as plt

    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
    plt.close(figure)
    return buffer.getvalue()


def _recall_plot(bench: Bench) -> bytes:
    import matplotlib.pyplot as plt

    sites = list(dict.fromkeys(run["site"] for run in bench.runs))
    figure, axes = plt.subplots(1, len(sites), figsize=(4.2 * len(sites), 3.4), squeeze=False)
    for ax, site in zip(axes[0], sites, strict=True):
        for run in (r for r in bench.runs if r["site"] == site and r.get("curve")):
            xs = [0] + [x for x, _ in run["curve"]]
            ys = [0.0] + [y for _, y in run["curve"]]
            ax.step(xs, ys, where="post", label=run["strategy"])
        ax.set_title(site)
        ax.set_xlabel("requests sent")
        ax.set_ylabel("record recall")
        ax.set_ylim(0, 1.02)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
    return _png(figure)


def _sites_plot(bench: Bench) -> bytes:
    import matplotlib.pyplot as plt

    sites = list(dict.fromkeys(run["site"] for run in bench.runs))
    crawlers = list(dict.fromkeys(run["crawler"] for run in bench.runs))
    by = {(run["site"], run["crawler"]): run for run in bench.runs}
    figure, axes = plt.subplots(2, 1, figsize=(min(14.0, max(6.0, 0.9 * len(sites) + 3)), 6.4))
    width = 0.8 / len(crawlers)
    for ax, measure in zip(axes, ("recall", "harvest"), strict=True):
        for i, crawler in enumerate(crawlers):
            values = [by.get((site, crawler), {}).get(measure) or 0 for site in sites]
            ax.bar([s + i * width for s in range(len(sites))], values, width, label=crawler)
        ticks = [s + width * (len(crawlers) - 1) / 2 for s in range(len(sites))]
        ax.set_xticks(ticks, sites, rotation=30 if len(sites) > 6 else 0)
        ax.set_title(measure.replace("harvest", "harvest rate").replace("recall", "record recall"))
        ax.set_ylim(0, 1.05)
        ax.grid(axis="y", alpha=0.3)
    axes[0].legend(loc="lower left")
    return _png(figure)
