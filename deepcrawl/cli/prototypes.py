"""``deepcrawl prototypes`` and ``deepcrawl label``: learn the kinds of URL, say which are wanted.

``prototypes`` prototypes a plain URL list (``--from-file``) or the links stored for a site, and
prints the prototypes (table or ``--json``); ``label`` walks the user through a site's prototypes
(or applies ``--labels FILE`` / ``--like URL`` without prompts, or serves a local web page with
``--web``) and stores the labels; ``--save FILE`` writes them as a ``--labels`` file.
"""

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape
from rich.prompt import Prompt
from rich.table import Table
from rich.text import Text

from deepcrawl.cli._access import AccessFlags, access_options
from deepcrawl.cli._app import app, console, err_console
from deepcrawl.errors import ConfigError, InvalidURLError
from deepcrawl.prototypes import (
    Kind,
    Prototype,
    Prototyper,
    kinds,
    labels_yaml,
    resolve_like,
)
from deepcrawl.prototypes._labelling import LabelSession, read_labels_file, suggest_name
from deepcrawl.settings import Settings, load_settings
from deepcrawl.storage import Repository, safe_url
from deepcrawl.urls import URLNormaliser
from deepcrawl.userinfo import split_userinfo

if TYPE_CHECKING:
    from deepcrawl.records.like import LikeAnswer

_DB_HELP = "Database URL (default: sqlite:///deepcrawl.db)."
_ACTIONS = escape(
    "[y] wanted, [n] not wanted, [s]kip, [m]ore examples, [j]oin with another kind, [x] split, "
    "[q]uit"
)


def _read_urls(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    return [line.strip() for line in text.splitlines() if line.strip()]


def _table(prototypes: list[Prototype], labels: dict[str, tuple[str, bool]] | None = None) -> Table:
    table = Table(title="prototypes", title_justify="left", show_lines=True)
    for column in ("id", "regex", "count", "coverage", "examples", "how found"):
        if column in ("count", "coverage"):
            table.add_column(column, justify="right")
        else:
            table.add_column(column, overflow="fold")
    if labels is not None:
        table.add_column("label")
    for p in prototypes:
        row = [
            p.id,
            p.regex,
            str(p.count),
            f"{p.coverage:.1%}",
            "\n".join(p.examples[:3]),
            p.how,
        ]
        if labels is not None:
            name, relevant = labels.get(p.id, ("", False))
            row.append(f"{name} ({'relevant' if relevant else 'not relevant'})" if name else "")
        table.add_row(*(Text(cell) for cell in row))  # a regex's [/?] is no markup
    return table


def _show_like(
    url: str,
    prototypes: list[Prototype],
    members: dict[str, list[str]],
    normal: str | None,
    pid: str | None,
    *,
    as_json: bool = False,
) -> None:
    if pid is None:
        raise ConfigError(f"no prototype matches {normal or url}")
    prototype = next(p for p in prototypes if p.id == pid)
    if as_json:
        out = {
            "like": url,
            "normal": normal,
            "prototype": prototype.to_dict(),
            "members": members.get(pid, []),
        }
        print(json.dumps(out, indent=2))
        return
    console.print(f"[bold]{url}[/] falls in prototype [bold]{pid}[/]", highlight=False)
    console.print(f"normal form: {normal}", highlight=False)
    console.print(f"regex: {prototype.regex}", highlight=False, markup=False)
    console.print(f"listed URLs it matches ({len(members.get(pid, []))}):", highlight=False)
    for member in members.get(pid, []):
        console.print(f"  {member}", highlight=False, markup=False)


def _show_answer(answer: "LikeAnswer", *, as_json: bool) -> None:
    """The ``--from-file --like`` answer: the prototype, the widened ones, the members, and
    the evidence it rests on."""
    if answer.prototype is None:
        raise ConfigError(f"no prototype matches {answer.normal or answer.like}")
    if as_json:
        print(json.dumps(answer.to_dict(), indent=2))
        return
    prototype = answer.prototype
    falls = f"[bold]{answer.like}[/] falls in prototype [bold]{prototype.id}[/]"
    console.print(falls, highlight=False)
    console.print(f"normal form: {answer.normal}", highlight=False)
    console.print(f"regex: {prototype.regex}", highlight=False, markup=False)
    for p in answer.widened:
        console.print(f"widened to: {p.regex}", highlight=False, markup=False)
    console.print(_evidence_line(answer), highlight=False, markup=False)
    console.print(f"listed URLs it matches ({len(answer.members)}):", highlight=False)
    for member in answer.members:
        console.print(f"  {member}", highlight=False, markup=False)


def _evidence_line(answer: "LikeAnswer") -> str:
    if answer.evidence == "urls":
        return f"evidence: the URLs alone ({answer.reason})"
    assert answer.layout is not None
    check, widening = answer.layout.check, answer.layout.widening
    return (
        f"evidence: the pages' layout ({answer.requests} pages fetched; "
        f"{check.splits} split(s); {len(widening.added)} of {len(widening.checked)} "
        "same-shape sibling prototypes look like the example)"
    )


@app.command()
def prototypes(
    site: Annotated[
        str | None,
        typer.Argument(help="Site (id, start URL or host) whose stored links to prototype."),
    ] = None,
    from_file: Annotated[
        Path | None,
        typer.Option("--from-file", help="Prototype the URLs of this file (one a line)."),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option(
            "--json",
            help="Print a JSON list of prototypes (with --like: the prototype and its URLs; "
            "with --from-file, also the sibling prototypes that joined it and the evidence).",
        ),
    ] = False,
    like: Annotated[
        str | None,
        typer.Option(
            help="Print the prototype this URL falls in and the URLs it matches. With "
            "--from-file, checked by the pages' layout as a crawl checks it: the example page "
            "and a few pages of its prototype and of same-shape sibling prototypes are fetched "
            "politely (robots.txt, the host's rate)."
        ),
    ] = None,
    offline: Annotated[
        bool,
        typer.Option(
            help="With --from-file and --like: fetch nothing, answer from the URLs alone."
        ),
    ] = False,
    relearn: Annotated[
        bool,
        typer.Option(help="SITE: prototype its stored links again (default: reuse stored ones)."),
    ] = False,
    db: Annotated[str | None, typer.Option(help=_DB_HELP)] = None,
) -> None:
    """Learn regex prototypes (one per kind of URL) and print them with coverage and examples.

    With SITE, the prototypes are learnt from the links stored for the site the first time (or
    with --relearn) and stored; later calls show the stored ones with their labels. With
    --from-file and --like, the example's prototype is checked by the pages' layout as a crawl
    checks it (a few pages fetched from the example's host), or from the URLs alone with
    --offline; the output says which evidence it rests on.
    """
    if (site is None) == (from_file is None):
        raise ConfigError("give either a SITE or --from-file URLS.txt")
    if offline and (from_file is None or like is None):
        raise ConfigError("--offline goes with --from-file URLS.txt and --like URL")
    settings = load_settings(storage={"url": db})
    if from_file is not None:
        lines = _read_urls(from_file)
        if like is not None:
            like = resolve_like(like, lines)  # a path: on the list's host
            from deepcrawl.records.like import like_over_list

            answer = asyncio.run(like_over_list(lines, like, settings, offline=offline))
            _warn_invalid(len(answer.invalid), next(iter(answer.invalid), None))
            _show_answer(answer, as_json=as_json)
            return
        fitted = Prototyper().fit(lines)
        _warn_invalid(fitted.n_invalid_, next(iter(fitted.invalid_), None))
        _print(list(fitted.prototypes_), as_json, None)
        return
    assert site is not None
    with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
        session = _session(repo, site, settings, relearn=relearn)
        if like is not None:
            like, _ = split_userinfo(resolve_like(like, repo.find_site(site).start_url))
            normal = session.normaliser(like)
            prototype = session.like(normal)
            _show_like(
                like, session.prototypes, session.members, normal, prototype.id, as_json=as_json
            )
            return
        _print(session.prototypes, as_json, session.labels())


def _warn_invalid(count: int, first: object) -> None:
    if count:
        err_console.print(
            f"{count} line(s) skipped, not valid URLs; first: {first}",
            style="yellow",
            highlight=False,
        )


def _print(
    found: list[Prototype], as_json: bool, labels: dict[str, tuple[str, bool]] | None
) -> None:
    if as_json:
        out = []
        for p in found:
            item = p.to_dict()
            if labels is not None and p.id in labels:
                item["label"], item["relevant"] = labels[p.id]
            out.append(item)
        print(json.dumps(out, indent=2))
    else:
        console.print(_table(found, labels))


@app.command()
@access_options
def label(
    site: Annotated[
        str, typer.Argument(help="Site (id, start URL or host) whose prototypes to label.")
    ],
    labels_file: Annotated[
        Path | None, typer.Option("--labels", help="YAML file of labels: no prompts.")
    ] = None,
    like: Annotated[
        list[str] | None,
        typer.Option(help="Mark as relevant the prototype of this example URL (repeatable)."),
    ] = None,
    relearn: Annotated[
        bool, typer.Option(help="Prototype the site's stored links again before labelling.")
    ] = False,
    web: Annotated[
        bool, typer.Option("--web", help="Label on a local web page (127.0.0.1) instead.")
    ] = False,
    port: Annotated[
        int | None,
        typer.Option(help="Port of the --web page (default: setting prototypes.label_port)."),
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option("--save", help="Write the site's labels to this YAML file (a --labels file)."),
    ] = None,
    db: Annotated[str | None, typer.Option(help=_DB_HELP)] = None,
    access: AccessFlags = AccessFlags(),
) -> None:
    """Label a site's prototypes: name each kind of URL and say whether it is wanted.

    Without --labels, --like or --web, walks through the prototypes, largest first, showing each
    kind's link texts and examples and asking: y wanted, n not wanted, s skip, m more examples,
    j join with another kind, x split, q quit. --save FILE then writes the labels as YAML.
    """
    settings = load_settings(storage={"url": db}, **access.overrides())  # --web's thumbnails
    with Repository.open(settings.storage.url, settings.storage, create=False) as repo:
        session = _session(repo, site, settings, relearn=relearn)
        start_url = repo.find_site(site).start_url
        next_command = f"deepcrawl crawl {start_url} --db {safe_url(settings.storage.url)} --resume"
        if labels_file is not None or like:
            base = repo.find_site(site).start_url  # a relative 'like' is a path of the site
            for entry in read_labels_file(labels_file, base=base) if labels_file else []:
                for p, name, relevant in session.apply([entry]):
                    _said(p, name, relevant)
            for url in like or []:
                p = session.label_like(resolve_like(url, base))
                _said(p, session.labels()[p.id][0], True)
        elif web:
            try:
                from deepcrawl.label_web import HOST, create_app, serve
            except ImportError as exc:
                raise ConfigError(
                    f"label --web needs the 'web' extra ({exc.name} is missing): "
                    "pip install 'deepcrawl[web]'"
                ) from exc

            chosen = settings.prototypes.label_port if port is None else port
            err_console.print(
                f"Label the kinds on http://{HOST}:{chosen}/ (Ctrl-C when done)", highlight=False
            )
            thumbnails = None
            if settings.prototypes.thumbnails:
                from deepcrawl.label_web.thumbnails import Thumbnails

                thumbnails = Thumbnails(repo, session.site_id, start_url, settings)
            serve(create_app(session, repo, next_command, thumbnails), chosen)
        else:
            try:
                _interactive(session, repo)
            except EOFError:  # input ended (a script, Ctrl-D): what was labelled is stored
                console.print()
            console.print(_table(session.prototypes, session.labels()))
        if save is not None:
            try:
                save.write_text(labels_yaml(session), encoding="utf-8")
            except OSError as exc:
                raise ConfigError(f"cannot write {save}: {exc}") from exc
            console.print(f"labels written to {save}", highlight=False)
        if not (labels_file is not None or like):
            console.print(f"next: {next_command}", highlight=False, markup=False)


def _session(repo: Repository, site: str, settings: Settings, *, relearn: bool) -> LabelSession:
    site_row = repo.find_site(site)
    urls = repo.link_urls(site_row.id)
    if relearn or not repo.prototypes(site_row.id):
        if not urls:
            raise ConfigError(f"site {site_row.start_url} has no stored links yet: crawl it first")
        return LabelSession.learn(repo, site_row.id, urls)
    normaliser = URLNormaliser()
    normal = []
    for url in urls:
        try:
            normal.append(normaliser(url))
        except InvalidURLError:
            continue
    return LabelSession(repo, site_row.id, dict.fromkeys(normal))


def _said(p: Prototype, name: str, relevant: bool) -> None:
    verdict = "[green]relevant[/]" if relevant else "[yellow]not relevant[/]"
    console.print(f"{p.id} labelled [bold]{name}[/] ({verdict}): {p.regex}", highlight=False)


def _show_kind(kind: Kind, total: int, others: list[Kind]) -> None:
    p = kind.prototype
    marks = "".join(
        mark
        for mark, on in (
            ("  [bold green]looks like the records[/]", kind.suggested),
            ("  [yellow]pager[/]", kind.pager),
        )
        if on
    )
    console.rule(f"kind {kind.position} of {total}: {escape(kind.shape)}{marks}")
    console.print(
        f"{p.count} URLs ({p.coverage:.0%}), {kind.result_links} result links"
        f"{f', {kind.pager_links} pager links' if kind.pager_links else ''}"
        f" from {kind.queries} queries; id {p.id}",
        highlight=False,
    )
    for e in kind.examples:
        said = " · ".join(f'"{x}"' for x in (e.text, e.title) if x)
        console.print(f"  {escape(said) or '(no link text)'}  [dim]{escape(e.url)}[/]",
                      highlight=False)  # fmt: skip
    if kind.label:
        name, relevant = kind.label
        console.print(f"  labelled {escape(name)} ({'wanted' if relevant else 'not wanted'})")
    if others:
        ids = ", ".join(f"{k.position}={k.id}" for k in others)
        console.print(f"[dim]other kinds (for j): {ids}[/]", highlight=False)


def _interactive(session: LabelSession, repo: Repository) -> None:
    queue = [p.id for p in session.prototypes]
    while queue:
        key = queue.pop(0)
        if key not in {p.id for p in session.prototypes}:
            continue  # merged away meanwhile
        p = session.get(key)
        found = kinds(session, repo)
        kind = next(k for k in found if k.id == key)
        _show_kind(kind, len(found), [k for k in found if k.id != key])
        shown = [e.url for e in kind.examples]
        while True:
            action = Prompt.ask(
                _ACTIONS,
                choices=["y", "n", "s", "m", "j", "x", "q"],
                default="s",
                console=console,
            )
            if action == "q":
                return
            if action == "s":
                break
            if action == "m":
                more = session.examples(key, len(shown), 10)
                for url in more:
                    console.print(f"  {url}", highlight=False, markup=False)
                shown += more
                if not more:
                    console.print("  (no more examples)")
                continue
            if action == "j":
                other = Prompt.ask(
                    "join with kind (its number or id)",
                    choices=[str(k.position) for k in found if k.id != key]
                    + [k.id for k in found if k.id != key],
                    show_choices=False,
                    console=console,
                )
                other_id = next((k.id for k in found if str(k.position) == other), other)
                try:
                    merged = session.merge(key, other_id)
                except ConfigError as exc:
                    err_console.print(f"[red]{exc}[/]", highlight=False)
                    continue
                console.print(f"merged into {merged.id}", highlight=False)
                queue.insert(0, merged.id)
                break
            if action == "x":
                parts = session.split(key)
                if len(parts) < 2:
                    console.print("no split found: its URLs share one shape")
                    continue
                console.print(f"split into {', '.join(q.id for q in parts)}", highlight=False)
                queue[:0] = [q.id for q in parts]
                break
            relevant = action == "y"
            name = Prompt.ask("label name", default=suggest_name(p), console=console)
            session.label(key, name, relevant=relevant)
            _said(p, name, relevant)
            break
