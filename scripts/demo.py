"""`make demo`: crawl the bundled demo site with `deepcrawl crawl` and score it against its truth.

Serves the "books" fixture site on 127.0.0.1, runs the real command a user would run —
``deepcrawl crawl URL --auto --out demo-output``, the start URL alone: the crawl picks the kind
of page that is the records itself — and prints the kind it picked, the record recall of the
pages it delivered, measured against the site's ground truth, and the requests the server
counted.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from deepcrawl_fixtures import FixtureServer

OUT = Path("demo-output")


def main() -> int:
    shutil.rmtree(OUT, ignore_errors=True)
    OUT.mkdir()
    with FixtureServer("books", records=500) as site:
        command = [
            sys.executable, "-m", "deepcrawl", "crawl", site.url + "/",
            "--auto",  # no example: the crawl picks the records (and never stops to ask)
            "--db", f"sqlite:///{OUT / 'crawl.db'}",
            "--out", str(OUT),
        ]  # fmt: skip
        print("$ deepcrawl " + " ".join(command[3:]), flush=True)
        if subprocess.run(command, check=False).returncode != 0:
            return 1
        truth = site.truth()
        stats = site.stats(log=False)
    delivered = [json.loads(line) for line in (OUT / "pages.jsonl").read_text().splitlines()]
    picked = json.loads((OUT / "stats.json").read_text()).get("picked") or {}
    records = {truth.record_of(p["final_url"]) for p in delivered} - {None}
    recall = len(records) / len(truth.detail_paths)
    print(
        f"\npicked {picked.get('kind', 'nothing')} as the records"
        f" (confidence {picked.get('confidence', 0):.2f});"
        f" delivered {len(delivered)} pages: {len(records)} of {len(truth.detail_paths)} records"
        f" (record recall {recall:.3f}); the server counted {stats['requests']} requests"
        f" (harvest rate {len(records) / max(1, stats['requests']):.3f})."
        f"\npages: {OUT / 'pages.jsonl'}, figures: {OUT / 'stats.json'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
