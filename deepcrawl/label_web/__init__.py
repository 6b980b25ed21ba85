"""``deepcrawl label SITE --web``: label a site's prototypes on a local web page.

A Starlette app with server-rendered Jinja2 templates and htmx (served from this package: the
page works without internet). Every card is one kind of URL (:func:`deepcrawl.prototypes.kinds`):
its shape in plain words, how many result links and queries it came from, examples with their
link texts and page titles, marks for the kind that looks like the records and for pager kinds,
and a thumbnail of one example page (:mod:`deepcrawl.label_web.thumbnails`). Every click goes
straight through the :class:`~deepcrawl.prototypes.LabelSession` into the database, so a closed
tab loses nothing; ``/labels.yaml`` exports the labels as a ``--labels`` file.

The labels are the user's, not the network's: the server binds to 127.0.0.1 only, and

* answers a request only when its ``Host`` names this machine (``127.0.0.1`` or ``localhost``,
  Starlette's ``TrustedHostMiddleware``): a page of another site whose name was made to resolve
  to 127.0.0.1 (DNS rebinding) is its own origin to the browser, sends its own name as ``Host``,
  and gets a 400. The port needs no check: a browser's ``Host`` names the port it connected to;
* refuses a change (every POST) sent from another origin (its ``Origin`` header is not this
  page's), and any change that does not carry the page's token — a secret of this server,
  drawn when the app is made and written into every form of the page, which another site's
  page cannot read. The token is checked whatever the ``Origin`` says: a header is only what
  the sender wrote (any program sends the page's own), the token is what the page was given.

Only ``deepcrawl label --web`` imports this package: the crawl never needs Starlette.
"""

from __future__ import annotations

import contextlib
import secrets
from pathlib import Path
from typing import TYPE_CHECKING

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from deepcrawl.errors import ConfigError, InvalidURLError
from deepcrawl.prototypes import kinds, labels_yaml, suggest_name

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from starlette.datastructures import FormData
    from starlette.requests import Request

    from deepcrawl.label_web.thumbnails import Thumbnails
    from deepcrawl.prototypes import LabelSession
    from deepcrawl.storage import Repository

__all__ = ["HOST", "create_app", "serve"]

#: The only address the page listens on: labels are the user's, not the network's.
HOST = "127.0.0.1"
#: The names a request's ``Host`` may give this machine by.
_LOCAL_NAMES = [HOST, "localhost"]
#: The field of every form of the page that carries its token.
_TOKEN_FIELD = "token"
_HERE = Path(__file__).parent
_VERDICTS = {"wanted": True, "unwanted": False}


def create_app(
    session: LabelSession,
    repo: Repository,
    next_command: str,
    thumbnails: Thumbnails | None = None,
) -> Starlette:
    """The labelling app for one site.

    Args:
        session: the site's prototypes and labels (changes are stored through it at once).
        repo: the repository the session stores into (read for link texts and titles).
        next_command: the command that goes on with the crawl once labelled (shown on the page).
        thumbnails: takes the screenshots shown on the cards; None: no thumbnails.
    """
    templates = Jinja2Templates(directory=_HERE / "templates")
    token = secrets.token_urlsafe(32)  # this server's: in every form of the page it serves

    # The handlers are async on purpose although storage is synchronous: one person clicks at
    # a time, and running them on the event loop keeps every database call on one thread.

    def page(request: Request, error: str = "", status: int = 200) -> Response:
        return templates.TemplateResponse(
            request,
            "page.html",
            {
                "kinds": kinds(session, repo),
                "error": error,
                "next_command": next_command,
                "suggest_name": suggest_name,
                "thumbnails": thumbnails is not None,
                "token": token,
            },
            status_code=status,
        )

    def card(request: Request, pid: str) -> Response:
        kind = next(k for k in kinds(session, repo) if k.id == pid)
        return templates.TemplateResponse(
            request,
            "card.html",
            {
                "kind": kind,
                "suggest_name": suggest_name,
                "thumbnails": thumbnails is not None,
                "token": token,
            },
        )

    async def index(request: Request) -> Response:
        return page(request)

    async def decide(request: Request) -> Response:
        pid = request.path_params["pid"]
        form = await _form(request, token)
        verdict = str(form.get("verdict", "skip"))
        try:
            prototype = session.get(pid)
            if verdict in _VERDICTS:
                name = str(form.get("name") or "").strip() or suggest_name(prototype)
                session.label(pid, name, relevant=_VERDICTS[verdict])
        except ConfigError as exc:
            return page(request, str(exc), 400)
        if request.headers.get("HX-Request"):
            return card(request, pid)
        return RedirectResponse(f"/#{pid}", status_code=303)

    async def merge(request: Request) -> Response:
        form = await _form(request, token)
        try:
            merged = session.merge(str(form.get("first", "")), str(form.get("second", "")))
        except ConfigError as exc:
            return page(request, str(exc), 400)
        return RedirectResponse(f"/#{merged.id}", status_code=303)

    async def split(request: Request) -> Response:
        await _form(request, token)
        try:
            parts = session.split(request.path_params["pid"])
        except ConfigError as exc:
            return page(request, str(exc), 400)
        if len(parts) < 2:
            return page(request, "no split found: the URLs of that kind share one shape", 400)
        return RedirectResponse(f"/#{parts[0].id}", status_code=303)

    async def like(request: Request) -> Response:
        form = await _form(request, token)
        url = str(form.get("url", "")).strip()
        try:
            prototype = session.label_like(url, str(form.get("name") or "").strip() or None)
        except (ConfigError, InvalidURLError) as exc:
            return page(request, f"{url}: {exc}", 400)
        return RedirectResponse(f"/#{prototype.id}", status_code=303)

    async def thumbnail(request: Request) -> Response:
        pid = request.path_params["pid"]
        kind = next((k for k in kinds(session, repo) if k.id == pid), None)
        png = None
        if thumbnails is not None and kind is not None and kind.preview is not None:
            png = await thumbnails.png(kind.preview)
        if png is None:
            return Response(status_code=404)
        return Response(png, media_type="image/png")

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[None]:
        yield
        if thumbnails is not None:
            await thumbnails.aclose()

    async def export(request: Request) -> Response:
        return PlainTextResponse(
            labels_yaml(session),
            media_type="application/yaml",
            headers={"Content-Disposition": 'attachment; filename="labels.yaml"'},
        )

    return Starlette(
        lifespan=lifespan,
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=_LOCAL_NAMES)],
        routes=[
            Route("/", index),
            Route("/kind/{pid}", decide, methods=["POST"]),
            Route("/kind/{pid}/split", split, methods=["POST"]),
            Route("/kind/{pid}/thumbnail.png", thumbnail),
            Route("/merge", merge, methods=["POST"]),
            Route("/like", like, methods=["POST"]),
            Route("/labels.yaml", export),
            Mount("/static", StaticFiles(directory=_HERE / "static"), name="static"),
        ],
    )


async def _form(request: Request, token: str) -> FormData:
    """The posted form, refused when another site's page may have sent it (cross-site request
    forgery): an ``Origin`` other than this page's, or a form without the page's ``token``
    (whatever its ``Origin``).

    Raises:
        HTTPException: 403, the request came from another origin, or lacks the page's token.
    """
    from starlette.exceptions import HTTPException

    origin = request.headers.get("origin")
    if origin is not None and origin != f"{request.url.scheme}://{request.url.netloc}":
        raise HTTPException(403, "changes are accepted from this page only")
    form = await request.form()
    given = form.get(_TOKEN_FIELD)
    if not isinstance(given, str) or not secrets.compare_digest(given, token):
        raise HTTPException(403, "changes are accepted from this page only (no token)")
    return form


def serve(app: Starlette, port: int) -> None:
    """Serve the app on 127.0.0.1 until interrupted (Ctrl-C)."""
    import uvicorn

    uvicorn.run(app, host=HOST, port=port, log_level="warning")
