"""The real label page, ``deepcrawl label 1 --db DB --web``, served for a test's block."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.integration.run_cli import cli_env, spawn_deepcrawl

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

#: How long the command may take to answer its first request.
UP_WITHIN_S = 60.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def label_page(tmp_path: Path, db: str) -> Iterator[str]:
    """The page of the first site stored in ``db``, on a free port of 127.0.0.1, once it
    answers: its URL (no trailing slash). The command is stopped after the block."""
    port = _free_port()
    server = spawn_deepcrawl(
        ["label", "1", "--db", db, "--web", "--port", str(port)],
        env=cli_env(tmp_path), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    page = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + UP_WITHIN_S
        while True:
            assert server.poll() is None, server.communicate()[1]
            if time.monotonic() > deadline:
                pytest.fail(f"the label page did not come up at {page}")
            try:
                if httpx.get(page + "/", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        yield page
    finally:
        server.terminate()
        server.communicate(timeout=30)
