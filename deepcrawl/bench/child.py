"""The bench's child crawls: how one is stopped, what it delivered, how it ended.

A bench runs ``deepcrawl crawl`` as a child process in a session of its own, as a user would,
and reads what it left: ``pages.jsonl`` (the URLs it delivered), ``stats.json`` (its own
account of how it ended) and its log.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["KILL_GRACE_S", "crawl_stop", "delivered_urls", "kill_group", "wait_capped"]

#: Seconds a child has between SIGTERM and SIGKILL.
KILL_GRACE_S = 10.0


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Stop the crawl's session: SIGTERM, then SIGKILL after a grace period."""
    for sig, grace in ((signal.SIGTERM, KILL_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(grace)
            return
        except subprocess.TimeoutExpired:
            continue


def wait_capped(proc: subprocess.Popen[bytes], timeout_s: float) -> bool:
    """Wait for the crawl to end by itself within ``timeout_s``; True when it was stopped
    (:func:`kill_group`) for running longer. Its session never outlives the wait."""
    try:
        proc.wait(timeout_s)
        return False
    except subprocess.TimeoutExpired:
        kill_group(proc)
        return True
    finally:
        if proc.poll() is None:
            kill_group(proc)


def crawl_stop(folder: Path, name: str, returncode: int) -> str:
    """The crawl's own account (``stats.json``), else its exit status and last line."""
    stats_path = folder / name / "stats.json"
    if returncode == 0 and stats_path.exists():
        stats = json.loads(stats_path.read_text())
        reason = stats.get("stop_reason")
        return f"{stats.get('status')}" + (f" ({reason})" if reason else "")
    lines = (folder / f"{name}.log").read_text(errors="replace").strip().splitlines()
    return f"exit {returncode}" + (f": {lines[-1][:200]}" if lines else "")


def delivered_urls(pages: Path) -> list[str]:
    """The URLs in a crawl's ``pages.jsonl`` (none when it wrote none; a torn last line
    skipped)."""
    if not pages.exists():
        return []
    urls = []
    for line in pages.read_text(encoding="utf-8").splitlines():
        try:
            urls.append(str(json.loads(line)["url"]))
        except (ValueError, KeyError):
            continue  # a line torn by a kill
    return urls
