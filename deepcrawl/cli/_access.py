"""The site-access options every fetching command shares, declared once.

``@access_options`` (placed under ``@app.command()``) adds ``--cookies``, ``--storage-state``,
``--header``, ``--credential-origin``, ``--user-agent`` and ``--proxy`` to a command, in a help
panel of their own, and
hands the command one :class:`AccessFlags` as its ``access`` keyword; the command passes
``**access.overrides()`` to :func:`~deepcrawl.settings.load_settings`. The values go to the
``access`` settings section (and ``http.user_agent``), so ``deepcrawl.toml`` and
``DEEPCRAWL_ACCESS__*`` can set them too; a flag given wins.
"""

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

__all__ = ["AccessFlags", "access_options"]

R = TypeVar("R")

_PANEL = "Site access"


@dataclass(frozen=True, slots=True)
class AccessFlags:
    """The site-access flags of one command line (None: not given)."""

    cookies: Path | None = None
    storage_state: Path | None = None
    header: tuple[str, ...] = ()
    credential_origin: tuple[str, ...] = ()
    user_agent: str | None = None
    proxy: str | None = None

    def overrides(self) -> dict[str, dict[str, Any]]:
        """Settings overrides for :func:`~deepcrawl.settings.load_settings`: the ``access``
        and ``http`` sections (flags not given leave the settings alone).

        Raises:
            AccessError: a ``--header`` is not ``'Name: value'``.
        """
        from deepcrawl.browser.access import parse_headers  # the browser package loads slowly

        headers = parse_headers(self.header) if self.header else None
        return {
            "access": {
                "cookies": self.cookies,
                "storage_state": self.storage_state,
                "headers": headers,
                "credential_origins": self.credential_origin or None,
                "proxy": self.proxy,
            },
            "http": {"user_agent": self.user_agent},
        }


_OPTIONS = (
    inspect.Parameter(
        "cookies",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            Path | None,
            typer.Option(
                help="Cookie file sent by the browser and plain HTTP alike: Netscape "
                "cookies.txt or a JSON list (browser extensions, Playwright).",
                rich_help_panel=_PANEL,
            ),
        ],
    ),
    inspect.Parameter(
        "storage_state",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            Path | None,
            typer.Option(
                help="Playwright storage state (from 'deepcrawl login'): a logged-in session.",
                rich_help_panel=_PANEL,
            ),
        ],
    ),
    inspect.Parameter(
        "header",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            list[str] | None,
            typer.Option(
                help="Extra request header 'Name: value' (repeatable); replaces the headers "
                "of deepcrawl.toml. Sent to the start URL's origin only (and --credential-origin).",
                rich_help_panel=_PANEL,
            ),
        ],
    ),
    inspect.Parameter(
        "credential_origin",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            list[str] | None,
            typer.Option(
                help="Another origin (scheme://[user:password@]host[:port]) the --header values "
                "go to besides the start URL's (repeatable); no other origin gets them. A user "
                "and password are that origin's HTTP Basic authentication, as in the start URL.",
                rich_help_panel=_PANEL,
            ),
        ],
    ),
    inspect.Parameter(
        "user_agent",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            str | None,
            typer.Option(
                help="User-Agent of every request, also matched in robots.txt.",
                rich_help_panel=_PANEL,
            ),
        ],
    ),
    inspect.Parameter(
        "proxy",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[
            str | None,
            typer.Option(
                help="Proxy URL for every request (http://host:port, credentials in the URL); "
                "HTTP(S)_PROXY variables are ignored.",
                rich_help_panel=_PANEL,
            ),
        ],
    ),
)
_NAMES = tuple(option.name for option in _OPTIONS)


def access_options(command: Callable[..., R]) -> Callable[..., R]:
    """Add the site-access options to a typer command whose ``access`` keyword takes them.

    typer reads a command's options from its signature: the wrapper's signature is the
    command's, ``access`` replaced by the site-access options.
    """
    signature = inspect.signature(command)
    if "access" not in signature.parameters:
        raise TypeError(f"{command.__name__} has no 'access' parameter")
    kept = [p for p in signature.parameters.values() if p.name != "access"]

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> R:
        given = {name: kwargs.pop(name, None) for name in _NAMES}
        flags = AccessFlags(
            cookies=given["cookies"],
            storage_state=given["storage_state"],
            header=tuple(given["header"] or ()),
            credential_origin=tuple(given["credential_origin"] or ()),
            user_agent=given["user_agent"],
            proxy=given["proxy"],
        )
        return command(*args, access=flags, **kwargs)

    # typer reads ``__signature__`` (inspect prefers it to ``__wrapped__``) and the hints
    setattr(wrapper, "__signature__", signature.replace(parameters=[*kept, *_OPTIONS]))  # noqa: B010
    annotations = {k: v for k, v in command.__annotations__.items() if k != "access"}
    wrapper.__annotations__ = annotations | {o.name: o.annotation for o in _OPTIONS}
    return wrapper
