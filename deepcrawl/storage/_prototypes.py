"""A site's URL prototypes and the labels a person gave them, as the repository stores them.

Labels are kept by prototype key, apart from the prototypes: the prototypes of a site are replaced
whole each time they are learnt again, and a label outlives that as long as its key does.

Functions over a session the repository opens inside its storage guard (one transaction a
method, see :mod:`deepcrawl.storage.repository`); one that writes commits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlmodel import col, select

from deepcrawl.storage import tables as t

if TYPE_CHECKING:
    from collections.abc import Iterable

    from sqlmodel import Session

__all__ = [
    "delete_labels",
    "labels",
    "prototype_regex",
    "prototypes",
    "save_prototypes",
    "set_label",
]

_PROTOTYPE: sa.Table = t.Prototype.__table__  # type: ignore[attr-defined]
#: Read for every page delivered: built once (building it cost more than running it).
_REGEX = sa.select(_PROTOTYPE.c.regex).where(
    _PROTOTYPE.c.site_id == sa.bindparam("site_id"), _PROTOTYPE.c.key == sa.bindparam("key")
)


def save_prototypes(
    s: Session, site_id: int, prototypes: Iterable[t.PrototypeBase]
) -> list[t.PrototypeRead]:
    """Replace the site's prototypes with ``prototypes``."""
    for old in s.exec(select(t.Prototype).where(t.Prototype.site_id == site_id)):
        s.delete(old)
    s.flush()
    rows = [t.Prototype.model_validate(p, update={"site_id": site_id}) for p in prototypes]
    s.add_all(rows)
    s.commit()
    return [t.PrototypeRead.model_validate(r) for r in rows]


def prototypes(s: Session, site_id: int) -> list[t.PrototypeRead]:
    """The site's prototypes, most URLs first."""
    rows = s.exec(
        select(t.Prototype)
        .where(t.Prototype.site_id == site_id)
        .order_by(col(t.Prototype.count).desc(), col(t.Prototype.key))
    )
    return [t.PrototypeRead.model_validate(r) for r in rows.all()]


def prototype_regex(s: Session, site_id: int, key: str) -> str | None:
    """The regular expression of the site's prototype ``key``; None when there is none."""
    found = s.execute(_REGEX, {"site_id": site_id, "key": key}).scalar()
    return None if found is None else str(found)


def set_label(
    s: Session, site_id: int, prototype_key: str, *, name: str, relevant: bool
) -> t.LabelRead:
    """Label a prototype, replacing an earlier label of it."""
    row = s.exec(
        select(t.Label).where(t.Label.site_id == site_id, t.Label.prototype_key == prototype_key)
    ).first()
    if row is None:
        row = t.Label(site_id=site_id, prototype_key=prototype_key, name=name, relevant=relevant)
    else:
        row.name, row.relevant = name, relevant
    s.add(row)
    s.commit()
    return t.LabelRead.model_validate(row)


def delete_labels(s: Session, site_id: int, prototype_keys: Iterable[str]) -> int:
    """Delete the labels of these prototypes; returns how many there were."""
    keys = list(prototype_keys)
    rows = s.exec(
        select(t.Label).where(t.Label.site_id == site_id, col(t.Label.prototype_key).in_(keys))
    ).all()
    for row in rows:
        s.delete(row)
    s.commit()
    return len(rows)


def labels(s: Session, site_id: int) -> list[t.LabelRead]:
    """The site's labels, in the order they were given."""
    rows = s.exec(select(t.Label).where(t.Label.site_id == site_id).order_by(col(t.Label.id)))
    return [t.LabelRead.model_validate(r) for r in rows.all()]
