"""Whether a folder can be made and written, asked before anything is created.

A command given ``--out``, ``--warc`` or a SQLite ``--db`` checks where they go before it opens
the database, starts the browser or sends a request: a path under a file, or in a folder it may
not write, then costs one line and leaves nothing behind — not a database made first and an
output that fails after it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["folder_problem"]


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be written in ``folder`` once it is made (None: they can).

    Nothing is created: the check walks up to the nearest path that exists, which must be a
    folder this process may write into (and enter) when ``folder`` is still to be made under it.
    """
    path = folder
    while not path.exists() and path.parent != path:
        path = path.parent
    if not path.is_dir():
        return f"{path} is a file, not a folder"
    if not os.access(path, os.W_OK | os.X_OK):
        return f"the folder {path} is not writable"
    return None
