"""The ``--like`` prototype's F1 on a real site: :func:`run_prototypes` and :func:`prototype_f1`.

Issue 14 asks that ``deepcrawl prototypes --from-file URLS --like U --json`` pick, over a
breadth-first URL list of each real site, a prototype whose URLs are the site's record pages.
The list is every same-site URL the breadth-first baseline saw — the pages it fetched and the
links it found on them, fetched or not, in discovery order — and the example is the site's own
``--like`` URL. The command runs as a user runs it (:func:`run_prototypes`): a child process,
while the site is served, so that it may check the prototype by the pages' layout; its JSON
answer's ``members`` are the URLs it would have a crawl download. The application's
``record_of`` says which listed URLs are record pages (:func:`prototype_f1`):

* **precision** — the answer's listed URLs that are record pages ÷ its listed URLs (every URL
  it holds would be downloaded);
* **recall** — records reached by the answer's URLs ÷ records the list holds a page of (a
  record listed under two URL forms counts once: one form suffices to crawl it);
* **F1** — their harmonic mean.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

    from deepcrawl_fixtures.real import RealApp

__all__ = ["PrototypeF1", "prototype_f1", "run_prototypes"]


@dataclass(frozen=True)
class PrototypeF1:
    """How well the example's prototype picks a URL list's record pages."""

    urls: int
    """Distinct URLs in the list."""
    record_urls: int
    """Listed URLs that are record pages."""
    records: int
    """Distinct records the list holds a page of."""
    members: int
    """Listed URLs the answer holds (the example's prototype and the widened ones)."""
    members_wanted: int
    """Of those, record pages."""
    records_matched: int
    """Distinct records among the answer's URLs."""
    regex: str
    """The example's prototype's regex; empty when no prototype matches the example."""
    evidence: str = "urls"
    """What the answer rests on: ``layout`` (pages compared with the example page) or
    ``urls``; the command's error when it failed."""
    widened: int = 0
    """Sibling prototypes the answer added because their pages look like the example."""
    requests: int = 0
    """Document requests the server saw while the command ran."""

    @property
    def precision(self) -> float:
        """The answer's URLs that are record pages ÷ its URLs."""
        return self.members_wanted / self.members if self.members else 0.0

    @property
    def recall(self) -> float:
        """Records reached by the answer ÷ records in the list."""
        return self.records_matched / self.records if self.records else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures, derived ones included."""
        return {
            "urls": self.urls,
            "record_urls": self.record_urls,
            "records": self.records,
            "members": self.members,
            "members_wanted": self.members_wanted,
            "records_matched": self.records_matched,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "f1": round(self.f1, 4),
            "regex": self.regex,
            "evidence": self.evidence,
            "widened": self.widened,
            "requests": self.requests,
        }


def run_prototypes(
    urls_file: Path,
    like: str,
    folder: Path,
    *,
    timeout_s: float,
    env: Mapping[str, str],
    settings_args: Sequence[str] = (),
) -> dict[str, Any] | str:
    """Run ``deepcrawl prototypes --from-file URLS_FILE --like LIKE --json`` as a child process.

    Its output goes to ``folder/prototypes.json``, its log to ``folder/prototypes.log``.

    Args:
        urls_file: the URL list.
        like: the example URL.
        folder: where the output and log are kept.
        timeout_s: wall-time cap of the command.
        env: the child's environment (the checkout's code first on ``PYTHONPATH``).
        settings_args: global options of the command (``--set section.key=value`` ...).

    Returns:
        The command's JSON answer, or why there is none (its exit status and last log line).
    """
    cmd = [
        *(sys.executable, "-m", "deepcrawl", *settings_args, "prototypes"),
        *("--from-file", str(urls_file), "--like", like, "--json"),
    ]
    out, log = folder / "prototypes.json", folder / "prototypes.log"
    with out.open("w") as stdout, log.open("w") as stderr:
        try:
            proc = subprocess.run(
                cmd, stdout=stdout, stderr=stderr, env=dict(env), timeout=timeout_s, check=False
            )
        except subprocess.TimeoutExpired:
            return f"killed after {timeout_s:.0f} s"
    if proc.returncode == 0:
        try:
            answer = json.loads(out.read_text())
        except ValueError:
            answer = None
        if isinstance(answer, dict):
            return answer
    lines = log.read_text(errors="replace").strip().splitlines()
    return f"exit {proc.returncode}" + (f": {lines[-1][:200]}" if lines else "")


def prototype_f1(
    app: RealApp, urls: Sequence[str], answer: Mapping[str, Any] | str, *, requests: int = 0
) -> PrototypeF1:
    """Score the ``prototypes --from-file URLS --like`` answer against the record pages
    ``app.record_of`` finds in the list.

    Args:
        app: the real application (``truth()`` and ``record_of``).
        urls: the URL list (absolute URLs of the site).
        answer: the command's JSON answer (``members``, ``prototype``, ``widened``,
            ``evidence``), or why there is none (it scores zero).
        requests: document requests the server saw while the command ran.
    """
    from deepcrawl_fixtures.real.score import path_of

    truth = app.truth().records
    listed = list(dict.fromkeys(urls))

    def record(url: str) -> str | None:
        key = app.record_of(path_of(url))
        return key if key in truth else None

    keys = {url: record(url) for url in listed}
    if isinstance(answer, str):
        members: list[str] = []
        regex, evidence, widened = "", answer, 0
    else:
        members = [str(url) for url in answer.get("members", [])]
        regex = str((answer.get("prototype") or {}).get("regex", ""))
        evidence = str((answer.get("evidence") or {}).get("used", "urls"))
        widened = len(answer.get("widened", []))
    matched = [keys.get(url) for url in dict.fromkeys(members)]
    return PrototypeF1(
        urls=len(listed),
        record_urls=sum(k is not None for k in keys.values()),
        records=len({k for k in keys.values() if k is not None}),
        members=len(matched),
        members_wanted=sum(k is not None for k in matched),
        records_matched=len({k for k in matched if k is not None}),
        regex=regex,
        evidence=evidence,
        widened=widened,
        requests=requests,
    )
