"""The crawl's own pick of the records, proposed at a terminal (``deepcrawl crawl`` with no
``--like``, no ``--labels`` and no ``--auto``).

The person sees the kind the crawl would take, with its evidence and the kinds left, and
answers in one key: take it, take another kind by its number, label each kind here (the
prompt of ``deepcrawl label``), or stop and label on the web page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.markup import escape
from rich.prompt import Prompt

from deepcrawl.cli._app import console
from deepcrawl.prototypes import suggest_name

if TYPE_CHECKING:
    from deepcrawl.prototypes import LabelSession
    from deepcrawl.records.pick import Pick, PickedKind

__all__ = ["propose"]


def propose(session: LabelSession, pick: Pick) -> None:
    """Show the pick and take the person's answer; the labels change accordingly: the pick's
    stay (Enter), move to the chosen kind (its number), or are taken back before the labelling
    prompt (``l``) or for the web page (``w``)."""
    from deepcrawl.cli.prototypes import _interactive

    console.rule("[bold]The records, as the result lists show them[/]")
    for kind in pick.taken:
        _show(kind, "crawl")
    console.print(escape(pick.message()), highlight=False)
    for number, kind in enumerate(pick.others, 1):
        _show(kind, str(number))
    choices = ["y", "l", "w", *(str(n) for n in range(1, len(pick.others) + 1))]
    other = f", [1-{len(pick.others)}] that kind instead" if pick.others else ""
    answer = Prompt.ask(
        escape(f"[y] crawl these{other}, [l]abel each kind here, [w] stop and label on the web"),
        choices=choices,
        default="y",
        console=console,
    )
    if answer == "y":
        return
    session.unlabel(p.id for kind in pick.taken for p in kind.prototypes)
    if answer == "l":
        _interactive(session, session.repo)
    elif answer != "w":
        chosen = pick.others[int(answer) - 1]
        for p in chosen.prototypes:
            session.label(p.id, suggest_name(p), relevant=True)
        console.print(f"crawling {escape(chosen.shape)}", highlight=False)


def _show(kind: PickedKind, mark: str) -> None:
    agreement = "" if kind.agreement is None else f", layout agreement {kind.agreement:.2f}"
    console.print(
        f"  [bold]{mark}[/] {escape(kind.shape)}: {kind.records} records in "
        f"{kind.entries} result entries{agreement}  [dim]{escape(kind.example)}[/]",
        highlight=False,
    )
