"""The crawl beside plain HTTP on a big real site: :func:`run_reference` and :func:`compare`.

Issue 27 asks that a crawl of a 20,000-record site run near the speed of the simplest client
that gets the same record pages. On a site whose application sets ``reference_client``, the
real-site bench runs, right after the crawl and through the same counting proxy, the reference
client (:mod:`deepcrawl.bench.reference`: httpx + lxml) over exactly the truth's record pages, at
the crawl's politeness (``politeness.requests_per_second``, ``politeness.concurrency_per_host``,
both raised with ``--set`` so that the server is the limit), and compares:

* **wall time** — the crawl's, from its start to its exit, ÷ the reference's, from its first
  request to its last answer;
* **CPU per delivered page** — the crawl's whole process tree (Chromium included,
  :class:`~deepcrawl.bench.usage.TreeSampler`) ÷ the URLs it delivered, against the reference
  process's CPU over its fetch ÷ the record pages it got;
* **peak PSS** of each process tree, sampled every :data:`~deepcrawl.bench.usage.SAMPLE_INTERVAL_S`;
* the machine's **load average** while each ran.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from deepcrawl.bench.real_run import RealRun
from deepcrawl.bench.usage import TreeSampler, TreeUsage
from deepcrawl.errors import FixtureError

if TYPE_CHECKING:
    from pathlib import Path

    from deepcrawl_fixtures.real import RealApp, Running

    from deepcrawl.settings import Settings

__all__ = ["SpeedComparison", "compare", "run_reference"]


@dataclass(frozen=True)
class SpeedComparison:
    """The crawl's speed and cost against the reference client's, on one site."""

    crawl_wall_s: float
    reference_wall_s: float
    crawl_pages_per_s: float
    """Delivered URLs a second of the crawl's wall time."""
    reference_pages_per_s: float
    """Record pages (status 200) a second of the reference's wall time."""
    crawl_cpu_ms_per_page: float | None
    """CPU milliseconds of the crawl's process tree per delivered URL (None: none delivered)."""
    reference_cpu_ms_per_page: float | None
    crawl_peak_pss_mib: float
    reference_peak_pss_mib: float
    crawl_load: float
    """Mean one-minute load average while the crawl ran."""
    reference_load: float

    @property
    def wall_ratio(self) -> float | None:
        """The crawl's wall time ÷ the reference's (the issue asks ≤ 1.5)."""
        return self.crawl_wall_s / self.reference_wall_s if self.reference_wall_s else None

    @property
    def cpu_ratio(self) -> float | None:
        """The crawl's CPU per delivered page ÷ the reference's (the issue asks ≤ 3)."""
        crawl, reference = self.crawl_cpu_ms_per_page, self.reference_cpu_ms_per_page
        return crawl / reference if crawl is not None and reference else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures, the ratios included."""
        figures = {
            "crawl_wall_s": self.crawl_wall_s,
            "reference_wall_s": self.reference_wall_s,
            "wall_ratio": self.wall_ratio,
            "crawl_pages_per_s": self.crawl_pages_per_s,
            "reference_pages_per_s": self.reference_pages_per_s,
            "crawl_cpu_ms_per_page": self.crawl_cpu_ms_per_page,
            "reference_cpu_ms_per_page": self.reference_cpu_ms_per_page,
            "cpu_ratio": self.cpu_ratio,
            "crawl_peak_pss_mib": self.crawl_peak_pss_mib,
            "reference_peak_pss_mib": self.reference_peak_pss_mib,
            "crawl_load": self.crawl_load,
            "reference_load": self.reference_load,
        }
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in figures.items()}


def compare(crawl: RealRun, reference: RealRun) -> SpeedComparison:
    """The comparison of a crawl with the reference client's run on the same site.

    Raises:
        ValueError: a run has no measured usage.
    """
    if crawl.usage is None or reference.usage is None:
        raise ValueError("both runs need their measured usage")
    crawl_pages = crawl.score.delivered
    reference_pages = reference.score.records_fetched
    return SpeedComparison(
        crawl_wall_s=crawl.wall_s,
        reference_wall_s=reference.wall_s,
        crawl_pages_per_s=_rate(crawl_pages, crawl.wall_s),
        reference_pages_per_s=_rate(reference_pages, reference.wall_s),
        crawl_cpu_ms_per_page=_per_page(crawl.usage.cpu_s, crawl_pages),
        reference_cpu_ms_per_page=_per_page(reference.usage.cpu_s, reference_pages),
        crawl_peak_pss_mib=crawl.usage.peak_pss_mib,
        reference_peak_pss_mib=reference.usage.peak_pss_mib,
        crawl_load=crawl.usage.load_mean,
        reference_load=reference.usage.load_mean,
    )


def run_reference(app: RealApp, site: Running, folder: Path, settings: Settings) -> RealRun:
    """Fetch the truth's record pages with the reference client through the site's proxy.

    The URLs go to ``folder/reference-urls.txt``, the client's answer to ``reference.json``.
    The run's ``wall_s`` and CPU are the client's own (its fetch, not its start); its memory
    and the load are sampled from outside.

    Raises:
        FixtureError: the client failed or ran past ``bench.real_timeout_s``.
    """
    from deepcrawl_fixtures.real.score import score

    urls = [site.url + path for path in app.truth().detail_paths.values()]
    urls_file = folder / "reference-urls.txt"
    urls_file.write_text("".join(f"{url}\n" for url in urls))
    politeness = settings.politeness
    cmd = [
        *(sys.executable, "-m", "deepcrawl.bench.reference", str(urls_file)),
        *("--rate", str(politeness.requests_per_second)),
        *("--concurrency", str(politeness.concurrency_per_host)),
    ]
    out = folder / "reference.json"
    with out.open("w") as stdout:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE)
        with TreeSampler(proc.pid) as sampler:
            try:
                _, stderr = proc.communicate(timeout=settings.bench.real_timeout_s)
            except subprocess.TimeoutExpired as exc:
                proc.kill()
                proc.communicate()
                raise FixtureError(
                    f"{app.name}: the reference client ran past "
                    f"{settings.bench.real_timeout_s:.0f} s"
                ) from exc
    if proc.returncode != 0:
        tail = stderr.decode(errors="replace").strip()[-1000:]
        raise FixtureError(f"{app.name}: the reference client failed: {tail}")
    answer = json.loads(out.read_text())
    log = site.requests()
    fetched = [str(e["path"]) for e in log if e["status"] == 200 and app.record_of(str(e["path"]))]
    usage: TreeUsage = replace(sampler.usage, cpu_s=float(answer["cpu_s"]))
    return RealRun(
        site=app.name,
        title=app.title,
        crawler="reference",
        score=score(app, log, fetched),
        stop=f"{answer['ok']} of {answer['urls']} record pages"
        + (f", {answer['failed']} failed" if answer["failed"] else ""),
        wall_s=float(answer["wall_s"]),
        usage=usage,
    )


def _rate(pages: int, seconds: float) -> float:
    return round(pages / seconds, 1) if seconds > 0 else 0.0


def _per_page(cpu_s: float, pages: int) -> float | None:
    return round(1000 * cpu_s / pages, 2) if pages else None
