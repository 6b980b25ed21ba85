"""Peak memory of a large crawl: ``deepcrawl crawl`` on a fixture site of many records (issue 9).

Usage::

    PYTHONPATH=.:fixtures .venv/bin/python benchmarks/scale_memory.py --records 100000

Serves the books site (GET search form) in its own process, runs ``deepcrawl crawl`` as a child
process on a fresh SQLite file with ``--like`` one detail page, and samples the crawler
process's own resident memory (``VmRSS``, and the kernel's high-water mark ``VmHWM`` of that one
process) once a second. Chromium runs in child processes of the crawler and is *not* counted:
the figure is the Python crawler's memory. Prints one line per sample interval and a JSON
summary at the end: peak memory, records delivered, record recall (distinct records delivered
over the site's records) and the crawl's queries, requests and stop reason.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from deepcrawl_fixtures import FixtureServer

if TYPE_CHECKING:
    from deepcrawl_fixtures.truth import GroundTruth


def _status_kb(pid: int, key: str) -> int:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in text.splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _delivered(out: Path) -> int:
    path = out / "pages.jsonl"
    if not path.exists():
        return 0
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


_URL = re.compile(rb'^\{"url": "([^"]+)"')


def _records_found(out: Path, truth: GroundTruth) -> int:
    """Distinct records among the delivered pages (near-duplicate URLs of one record once)."""
    path = out / "pages.jsonl"
    found: set[str] = set()
    if path.exists():
        with path.open("rb") as fh:
            for line in fh:  # the URL leads each line: no need to parse the page bodies
                match = _URL.match(line)
                if match and (record := truth.record_of(match[1].decode())) is not None:
                    found.add(record)
    return len(found)


def _crawl_stats(out: Path) -> dict[str, object]:
    """The crawl's own figures (``stats.json``): queries, requests, why querying stopped."""
    try:
        stats = json.loads((out / "stats.json").read_text())
    except (OSError, ValueError):
        return {}
    keys = ("queries", "requests", "records_estimated", "stop_reason")
    return {key: stats.get(key) for key in keys}


def main() -> None:
    """Run the measured crawl and print the peak memory."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", default="books")
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--every", type=float, default=30.0, help="seconds between reports")
    parser.add_argument("--max-seconds", type=float, default=0.0, help="stop after (0: never)")
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--max-queries", type=int, default=20_000, help="query budget (large: run to saturation)"
    )
    args = parser.parse_args()
    work = args.workdir or Path(tempfile.mkdtemp(prefix="dc-scale-mem-"))
    work.mkdir(parents=True, exist_ok=True)
    with FixtureServer(args.site, records=args.records) as server:
        truth = server.truth()
        like = server.url + truth.detail_paths[0]
        out = work / "out"
        cmd = [
            sys.executable, "-m", "deepcrawl", "crawl", server.url + "/",
            "--db", f"sqlite:///{work / 'crawl.db'}", "--like", like, "--out", str(out),
            "--max-queries", str(args.max_queries),
        ]  # fmt: skip
        env = {
            **os.environ,
            # the fixture site is ours: no rate limit, the bench's concurrency
            "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "0",
            "DEEPCRAWL_POLITENESS__CONCURRENCY_PER_HOST": "8",
            "DEEPCRAWL_STORAGE__BODIES_DIR": str(work / "bodies"),
        }
        started = time.monotonic()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak_kb, last = 0, 0.0
        samples: list[tuple[float, int, int]] = []
        while proc.poll() is None:
            time.sleep(1.0)
            # VmHWM: the kernel's peak RSS of this one process (Chromium children excluded)
            peak_kb = max(peak_kb, _status_kb(proc.pid, "VmHWM"))
            elapsed = time.monotonic() - started
            if elapsed - last >= args.every:
                last = elapsed
                rss = _status_kb(proc.pid, "VmRSS")
                samples.append((round(elapsed), _delivered(out), rss // 1024))
                print(
                    f"{elapsed:7.0f} s  delivered {samples[-1][1]:>7}  rss {rss // 1024} MiB  "
                    f"peak {peak_kb // 1024} MiB",
                    flush=True,
                )
            if args.max_seconds and elapsed > args.max_seconds:
                proc.terminate()
        _, err = proc.communicate()
        summary = {
            "site": args.site,
            "records": args.records,
            "exit_code": proc.returncode,
            "seconds": round(time.monotonic() - started, 1),
            "delivered": _delivered(out),
            "record_recall": round(_records_found(out, truth) / args.records, 4),
            **_crawl_stats(out),
            "peak_rss_mib": peak_kb // 1024,
            "samples": samples,
            "stderr_tail": err.decode(errors="replace")[-600:],
        }
        print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
