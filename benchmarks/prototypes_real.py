"""F1 of the ``--like`` prototype against the detail pages of real applications' URL lists.

For each ``tests/data/real/<app>/urls.tsv`` (a breadth-first URL list of a real application, each
URL with its page kind from the application's own store; ``scripts/real_url_list.py``), runs the
command a user runs — ``deepcrawl prototypes --from-file URLS --like U --json --offline`` with
the list's first detail URL as ``U`` — and scores the URLs the printed prototype holds against
the list's detail pages (target: F1 >= 0.98). ``--offline``: the applications the lists were
saved from are not running, so the answer rests on the URLs alone (the layout check of a served
site: ``deepcrawl bench --suite real --job prototypes``).

Run: ``PYTHONPATH=.:fixtures .venv/bin/python benchmarks/prototypes_real.py``
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from deepcrawl.urls import normalise_url

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "real"


def score(app: Path) -> str:
    rows = [line.split("\t") for line in (app / "urls.tsv").read_text().splitlines()]
    detail = {normalise_url(url) for kind, url in rows if kind == "detail"}
    like = next(url for kind, url in rows if kind == "detail")
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as urls:
        urls.write("\n".join(url for _, url in rows) + "\n")
        urls.flush()
        command = [
            sys.executable, "-m", "deepcrawl", "prototypes",
            "--from-file", urls.name, "--like", like, "--json", "--offline",
        ]  # fmt: skip
        out = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
    members = {normalise_url(url) for url in out["members"]}
    hits = len(members & detail)
    precision, recall = hits / len(members), hits / len(detail)
    f1 = 2 * hits / (len(members) + len(detail))
    return (
        f"{app.name:10} F1 {f1:.3f} (precision {precision:.3f}, recall {recall:.3f}; "
        f"{len(rows)} URLs, {len(detail)} detail)  --like {like}\n"
        f"{'':10} {out['prototype']['regex']}"
    )


def main() -> None:
    for app in sorted(p for p in DATA.iterdir() if (p / "urls.tsv").exists()):
        print(score(app))


if __name__ == "__main__":
    main()
