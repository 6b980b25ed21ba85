"""Schema versions 5 and 7: the stored URL keys re-written in the URL normal form of
:mod:`deepcrawl.urls`.

A record's identity is its URL's normal form: the frontier and the page store are keyed by it
(unique per site). When the normal form changed (version 5: IDNA hosts instead of
percent-encoded ones, form-equivalent query escapes, browser-style encoding of spaces and ``'``;
version 7: session ids dropped), a database written before would know its records under their
old keys, and a resumed crawl would fetch and deliver them again. This migration re-normalises
every key in place:

* ``frontier.url`` (and its ``host``) and ``page.url`` — not the ``results`` pages, whose key
  is the submitted URL tagged with the query (no normal form); a key that no longer normalises
  is kept as it is;
* two rows of one site that now share a key are merged into the better one: for the frontier
  the furthest along (``done`` before ``queued``/``leased`` before ``failed``, then the higher
  priority), for pages a successful fetch before a failed one, then a delivered one, then the
  first stored; the kept row takes the other's highest priority and delivery, the other is
  deleted with its links;
* ``prototype.examples`` re-normalised, and the origin that starts a prototype's regex
  rewritten (its key, which labels refer to, is kept).

It runs inside the transaction that opens the database (:func:`deepcrawl.storage.engine
.open_engine`), so it is all or nothing, and reports what it did.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import sqlalchemy as sa

from deepcrawl.errors import InvalidURLError
from deepcrawl.storage import tables as t
from deepcrawl.urls import URLNormaliser

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias

    from sqlalchemy.engine import Connection, Row

    _Row: TypeAlias = Row[*tuple[Any, ...]]

__all__ = ["Renormalised", "renormalise_urls"]

_FRONTIER = t.FrontierEntry.__table__  # type: ignore[attr-defined]
_PAGE = t.Page.__table__  # type: ignore[attr-defined]
_LINK = t.Link.__table__  # type: ignore[attr-defined]
_DELIVERY = t.Delivery.__table__  # type: ignore[attr-defined]
_PROTOTYPE = t.Prototype.__table__  # type: ignore[attr-defined]

#: How far along a frontier state is: the row that got further is kept.
_STATE_RANK = {"done": 3, "leased": 2, "queued": 2, "failed": 1}
#: Regex metacharacters as the prototyper escapes them (``-`` left alone).
_META_RE = re.compile(r"[.^$*+?{}\[\]\\|()]")
_ESCAPED_RE = re.compile(r"\\(.)")
#: Rows read at a time.
_BATCH = 5_000
#: New keys whose rows are read in one query (bounded: a statement takes so many parameters).
_GROUPS = 400


@dataclass(slots=True)
class Renormalised:
    """What the migration did.

    Attributes:
        renamed: keys re-written, by table.
        merged: rows deleted because another row of their site took their key, by table.
        kept: keys that no longer normalise, left as they were, by table.
    """

    renamed: dict[str, int]
    merged: dict[str, int]
    kept: dict[str, int]

    def summary(self) -> str:
        """One line for the log."""
        tables = sorted(set(self.renamed) | set(self.merged) | set(self.kept))
        parts = [
            f"{name}: {self.renamed.get(name, 0)} re-written, {self.merged.get(name, 0)} merged, "
            f"{self.kept.get(name, 0)} kept as they were"
            for name in tables
        ]
        return "; ".join(parts) or "nothing to change"


def renormalise_urls(conn: Connection, normaliser: URLNormaliser | None = None) -> Renormalised:
    """Re-write the stored URL keys in today's normal form (the module docstring's list)."""
    normalise = normaliser or URLNormaliser()
    done = Renormalised(renamed={}, merged={}, kept={})
    _rekey(conn, _FRONTIER, None, normalise, _frontier_best, done)
    _rekey(conn, _PAGE, _PAGE.c.kind.is_distinct_from("results"), normalise, _page_best, done)
    _prototypes(conn, normalise, done)
    return done


def _target(normalise: URLNormaliser, url: str) -> str | None:
    try:
        return normalise(url)
    except InvalidURLError:
        return None


def _rekey(
    conn: Connection,
    table: sa.Table,
    where: sa.ColumnElement[bool] | None,
    normalise: URLNormaliser,
    best: Callable[[Connection, Sequence[_Row]], _Row],
    done: Renormalised,
) -> None:
    """Re-key one table; rows that meet on one key are merged by ``best`` (the kept row)."""
    name = table.name
    moved: dict[tuple[int, str], list[int]] = defaultdict(list)
    last = 0
    while True:
        query = sa.select(table.c.id, table.c.site_id, table.c.url).where(table.c.id > last)
        if where is not None:
            query = query.where(where)
        rows = conn.execute(query.order_by(table.c.id).limit(_BATCH)).all()
        if not rows:
            break
        last = rows[-1].id
        for row in rows:
            target = _target(normalise, row.url)
            if target is None:
                done.kept[name] = done.kept.get(name, 0) + 1
            elif target != row.url:
                moved[(row.site_id, target)].append(row.id)
    by_site: dict[int, list[tuple[str, list[int]]]] = defaultdict(list)
    for (site_id, target), ids in moved.items():
        by_site[site_id].append((target, ids))
    for site_id, groups in by_site.items():
        for start in range(0, len(groups), _GROUPS):
            _merge(conn, table, site_id, groups[start : start + _GROUPS], best, done)


def _merge(
    conn: Connection,
    table: sa.Table,
    site_id: int,
    groups: Sequence[tuple[str, list[int]]],
    best: Callable[[Connection, Sequence[_Row]], _Row],
    done: Renormalised,
) -> None:
    """Give each group's new key to its best row (the rows moving there and the one holding it
    already, read in one query), deleting the others."""
    name = table.name
    target_of = {row_id: target for target, ids in groups for row_id in ids}
    # two queries, not one with OR: each keeps its index (the id, the site's unique key)
    rows = [
        *conn.execute(sa.select(table).where(table.c.id.in_(list(target_of)))),
        *conn.execute(
            sa.select(table).where(
                table.c.site_id == site_id, table.c.url.in_([target for target, _ in groups])
            )
        ),
    ]
    meeting: dict[str, list[_Row]] = defaultdict(list)
    for row in rows:
        meeting[target_of.get(row.id, row.url)].append(row)
    renamed: list[dict[str, Any]] = []
    for target, together in meeting.items():
        keep = together[0] if len(together) == 1 else best(conn, together)
        losers = [row for row in together if row.id != keep.id]
        if losers:
            _absorb(conn, table, keep, losers)
            done.merged[name] = done.merged.get(name, 0) + len(losers)
        if keep.url != target:
            renamed.append({"row": keep.id, "new_url": target, "new_host": _host(target)})
    if renamed:
        values: dict[str, Any] = {"url": sa.bindparam("new_url")}
        if table is _FRONTIER:
            values["host"] = sa.bindparam("new_host")
        statement = sa.update(table).where(table.c.id == sa.bindparam("row")).values(**values)
        conn.execute(statement, renamed)
        done.renamed[name] = done.renamed.get(name, 0) + len(renamed)


def _host(url: str) -> str:
    return urlsplit(url).hostname or ""


def _frontier_best(_conn: Connection, rows: Sequence[_Row]) -> _Row:
    return max(rows, key=lambda r: (_STATE_RANK.get(r.state, 0), r.priority, -r.id))


def _page_best(conn: Connection, rows: Sequence[_Row]) -> _Row:
    ids = [row.id for row in rows]
    delivered = set(
        conn.execute(sa.select(_DELIVERY.c.page_id).where(_DELIVERY.c.page_id.in_(ids))).scalars()
    )
    return max(
        rows,
        key=lambda r: (r.error is None and 0 < r.status < 400, r.id in delivered, -r.id),
    )


def _absorb(conn: Connection, table: sa.Table, keep: _Row, losers: Sequence[_Row]) -> None:
    """Delete ``losers``, the kept row taking what it lacks of theirs."""
    ids = [row.id for row in losers]
    if table is _FRONTIER:
        priority = max(row.priority for row in (keep, *losers))
        conn.execute(sa.update(table).where(table.c.id == keep.id).values(priority=priority))
    else:
        has_delivery = conn.execute(
            sa.select(_DELIVERY.c.id).where(_DELIVERY.c.page_id == keep.id)
        ).first()
        if has_delivery is None:  # the record was delivered under the other key: it stays so
            moved = conn.execute(
                sa.select(_DELIVERY.c.id).where(_DELIVERY.c.page_id.in_(ids)).limit(1)
            ).scalar()
            if moved is not None:
                conn.execute(
                    sa.update(_DELIVERY).where(_DELIVERY.c.id == moved).values(page_id=keep.id)
                )
        conn.execute(sa.delete(_DELIVERY).where(_DELIVERY.c.page_id.in_(ids)))
        conn.execute(sa.delete(_LINK).where(_LINK.c.source_page_id.in_(ids)))
    conn.execute(sa.delete(table).where(table.c.id.in_(ids)))


def _prototypes(conn: Connection, normalise: URLNormaliser, done: Renormalised) -> None:
    rows = conn.execute(sa.select(_PROTOTYPE.c.id, _PROTOTYPE.c.regex, _PROTOTYPE.c.examples))
    for row in rows.all():
        examples = list(row.examples or [])
        renewed = list(dict.fromkeys(_target(normalise, url) or url for url in examples))
        regex = _renew_origin(row.regex, normalise)
        if renewed != examples or regex != row.regex:
            conn.execute(
                sa.update(_PROTOTYPE)
                .where(_PROTOTYPE.c.id == row.id)
                .values(examples=renewed, regex=regex)
            )
            done.renamed["prototype"] = done.renamed.get("prototype", 0) + 1


def _escape(text: str) -> str:
    return _META_RE.sub(r"\\\g<0>", text)


def _renew_origin(regex: str, normalise: URLNormaliser) -> str:
    """The regex with its leading literal origin (``https?://host``, escaped) in normal form."""
    start = regex.find("://")
    end = regex.find("/", start + 3) if start > 0 else -1
    if end < 0:
        return regex
    escaped = regex[:end]
    origin = _ESCAPED_RE.sub(r"\1", escaped)
    if _escape(origin) != escaped:  # no plain literal: not the prototyper's, left alone
        return regex
    try:
        new = normalise.parts(origin + "/")[0]
    except InvalidURLError:
        return regex
    return _escape(new) + regex[end:]
