"""Take the documentation's pictures from the running programs (``make screenshots``).

1. ``docs/images/label-web.png``: serves the bundled "books" site, runs a crawl's setup phase
   (``deepcrawl crawl URL --no-auto``: it stops for labels), serves the label page on it
   (``deepcrawl label 1 --web``), and opens that page in Chromium launched as deepcrawl launches
   it (``deepcrawl.browser.launch_chromium``); marks the kind that looks like the records wanted
   and the next kind not wanted, as a person would, and takes the whole page.
2. ``docs/images/bench-recall.png``: runs ``deepcrawl bench`` on the books site (deepcrawl and
   the breadth-first baseline) and keeps the plot it writes.

Everything runs on 127.0.0.1, in a temporary folder removed at the end. A few minutes on the
two-core reference machine, mostly the bench; ``screenshots.py label`` (or ``bench``) takes one.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from deepcrawl_fixtures import FixtureServer

from deepcrawl.browser import launch_chromium
from deepcrawl.settings import load_settings

ROOT = Path(__file__).resolve().parents[2]
IMAGES = ROOT / "docs" / "images"
#: The page is read as a person would see it on a laptop's screen.
VIEWPORT = {"width": 1280, "height": 900}


def _deepcrawl(*args: str) -> list[str]:
    return [sys.executable, "-m", "deepcrawl", *args]


def _env(tmp: Path) -> dict[str, str]:
    return {
        **os.environ,
        "DEEPCRAWL_STORAGE__BODIES_DIR": str(tmp / "bodies"),
        "DEEPCRAWL_POLITENESS__REQUESTS_PER_SECOND": "0",  # a local site: no rate limit
    }


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen[str], within_s: float = 90.0) -> None:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the label page stopped: {server.communicate()[1]}")
        try:
            if httpx.get(url, timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise SystemExit(f"the label page did not answer at {url}")


async def _shoot(page_url: str, out: Path) -> None:
    launched = await launch_chromium(load_settings())
    try:
        page = await launched.browser.new_page(viewport=VIEWPORT)
        await page.goto(page_url)
        record = page.locator("article.kind").filter(has_text="looks like the records")
        thumbnail = record.locator("img.thumbnail")
        await thumbnail.wait_for()
        handle = await thumbnail.element_handle()
        await page.wait_for_function("el => el.complete && el.naturalWidth > 0", arg=handle)
        await record.get_by_role("button", name="Wanted", exact=True).click()
        await page.locator("article.kind.wanted").wait_for()
        await page.keyboard.press("n")  # the focus moved on to the next kind: not wanted
        await page.locator("article.kind.unwanted").wait_for()
        await page.evaluate("window.scrollTo(0, 0)")
        await page.screenshot(path=str(out), full_page=True)
    finally:
        await launched.aclose()


def label_page(tmp: Path) -> Path:
    """The label page of the books site after a crawl's setup phase, as a PNG."""
    db = "sqlite:///crawl.db"  # in the temporary folder: the page's advice shows it
    out = IMAGES / "label-web.png"
    with FixtureServer("books", records=40, seed=19) as site:
        setup = [*_deepcrawl("crawl", site.url + "/", "--db", db, "--no-auto")]
        subprocess.run(setup, cwd=tmp, env=_env(tmp), check=True, capture_output=True)
        port = _free_port()
        command = _deepcrawl("label", "1", "--db", db, "--web", "--port", str(port))
        server = subprocess.Popen(
            command, cwd=tmp, env=_env(tmp), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            _wait_for(f"http://127.0.0.1:{port}/", server)
            asyncio.run(_shoot(f"http://127.0.0.1:{port}/", out))
        finally:
            server.terminate()
            server.communicate(timeout=30)
    return out


def bench_plot(tmp: Path) -> Path:
    """The plot ``deepcrawl bench --out`` writes, for the books site."""
    folder = tmp / "bench"
    command = _deepcrawl(
        "bench", "--site", "books", "--strategy", "deepcrawl", "--strategy", "bfs",
        "--records", "200", "--out", str(folder),
    )  # fmt: skip
    subprocess.run(command, cwd=tmp, env=_env(tmp), check=True)
    out = IMAGES / "bench-recall.png"
    shutil.copyfile(folder / "recall.png", out)
    return out


#: The pictures by name: ``screenshots.py label`` takes that one only.
PICTURES = {"label": label_page, "bench": bench_plot}


def main(argv: list[str]) -> int:
    chosen = argv or list(PICTURES)
    unknown = set(chosen) - set(PICTURES)
    if unknown:
        print(f"no picture {', '.join(sorted(unknown))}: one of {', '.join(PICTURES)}")
        return 2
    IMAGES.mkdir(parents=True, exist_ok=True)
    for name in chosen:
        with tempfile.TemporaryDirectory(prefix="deepcrawl-shots-") as folder:
            print(f"wrote {PICTURES[name](Path(folder)).relative_to(ROOT)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
