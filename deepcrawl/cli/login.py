"""``deepcrawl login``: open a browser, let the user log in, save the session for the crawl."""

import asyncio
import contextlib
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, err_console
from deepcrawl.errors import BrowserError, ConfigError
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from playwright.async_api import Page


async def _until_user_is_done(page: "Page") -> None:
    """Return when the user presses Enter (or ends the input) or closes the page."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[None] = loop.create_future()

    def finish() -> None:
        if not done.done():
            done.set_result(None)

    def read_line() -> None:
        sys.stdin.readline()
        with contextlib.suppress(RuntimeError):  # the loop has ended: the session is saved
            loop.call_soon_threadsafe(finish)

    page.on("close", lambda _page: finish())
    # a daemon thread: a line never typed (the window was closed) must not keep the process,
    # as ``asyncio.to_thread``'s executor would at the loop's shutdown
    threading.Thread(target=read_line, name="login-enter", daemon=True).start()
    await done


async def _loaded(page: "Page") -> None:
    """A headless browser takes no input: the session is saved once the page has loaded."""
    await page.wait_for_load_state("load")


@app.command()
@access_options
def login(
    url: Annotated[str, typer.Argument(help="The site's login page.")],
    out: Annotated[
        Path, typer.Option(help="Storage-state file to write (give it to --storage-state).")
    ] = Path("storage-state.json"),
    headed: Annotated[
        bool | None,
        typer.Option(
            "--headed/--headless",
            help="Show a browser window (default: when a display exists).",
        ),
    ] = None,
    access: AccessFlags = AccessFlags(),
) -> None:
    """Log in to URL in a browser yourself; the session is saved for 'crawl --storage-state'.

    Press Enter (or close the page) when logged in: the cookies and local storage go to --out.
    deepcrawl never submits a login form by itself; this is your own browser session. Without
    a display the browser runs headless and saves what the site sets on a visit only: log in
    on a machine with a display and copy the file, or export your browser's cookies and use
    --cookies.
    """
    from deepcrawl.browser.login import has_display, record_login

    if not url.startswith(("http://", "https://")):
        raise ConfigError(f"not an http(s) URL: {url!r}")
    settings = load_settings(**access.overrides())
    show = has_display() if headed is None else headed
    if show and not has_display():
        raise BrowserError("--headed needs a display (DISPLAY or WAYLAND_DISPLAY is not set)")
    if show:
        err_console.print(
            f"Log in to {url} in the browser window, then press Enter here (or close the "
            "window) to save the session.",
            highlight=False,
        )
    else:
        err_console.print(
            "No display here: the browser runs headless and you cannot log in through it. "
            "The session saved holds only what the site sets on a visit. To log in, run "
            "'deepcrawl login' where a display exists and copy the file, or export your "
            "browser's cookies and pass them with --cookies.",
            highlight=False,
        )
    session = asyncio.run(
        record_login(url, out, settings, headed=show, done=_until_user_is_done if show else _loaded)
    )
    err_console.print(
        f"saved {session.cookies} cookie(s) and the local storage of {session.origins} "
        f"origin(s) to {session.path}; crawl with --storage-state {session.path}",
        highlight=False,
    )
