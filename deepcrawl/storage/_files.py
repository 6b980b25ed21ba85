"""The files storage keeps beside the database, under ``settings.storage.bodies_dir``.

Two kinds: page bodies (and exchange payloads) too large to keep inline, named by their SHA-256 so
that identical bodies are stored once; and the page screenshots ``deepcrawl label --web`` shows, a
picture for a person and never crawl state. Each file is written under a temporary name and then
renamed into place, so that a crash never leaves half a file under the real name.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from deepcrawl.errors import StorageError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["read_thumbnail", "write_body", "write_thumbnail"]


def write_body(bodies_dir: Path, digest: str, raw: bytes) -> str:
    """Store ``raw`` (whose SHA-256 is ``digest``) as a file, unless it is there already.

    Returns:
        The file's path, as the ``body_path`` column keeps it.
    Raises:
        StorageError: the file could not be written.
    """
    path = bodies_dir / digest[:2] / f"{digest}.body"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.exists():
            _write_in_place(path, raw)
    except OSError as exc:
        raise StorageError(f"cannot write body file {path}: {exc}") from exc
    return str(path)


def read_thumbnail(bodies_dir: Path, site_id: int, url: str) -> bytes | None:
    """The cached screenshot (PNG) of the site's page ``url``; None when none was taken yet.

    Raises:
        StorageError: the file is there but could not be read.
    """
    path = _thumbnail_path(bodies_dir, site_id, url)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StorageError(f"cannot read thumbnail {path}: {exc}") from exc


def write_thumbnail(bodies_dir: Path, site_id: int, url: str, png: bytes) -> None:
    """Cache a screenshot (PNG) of the site's page ``url``, replacing an earlier one.

    Raises:
        StorageError: the file could not be written.
    """
    path = _thumbnail_path(bodies_dir, site_id, url)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _write_in_place(path, png)
    except OSError as exc:
        raise StorageError(f"cannot write thumbnail {path}: {exc}") from exc


def _thumbnail_path(bodies_dir: Path, site_id: int, url: str) -> Path:
    digest = hashlib.sha256(url.encode("utf-8")).hexdigest()
    return bodies_dir / "thumbnails" / str(site_id) / f"{digest}.png"


def _write_in_place(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
