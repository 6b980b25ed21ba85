"""Keyword sources: the bundled word lists and the user's own (``--keywords FILE``).

Hernández et al. ("The Keyword Manager") fill a general site's form with the most common words of
its language and a specialised site's with a domain list; both are plain-text lists here, one word
or phrase a line (format in ``keywords/README.md``). The lists live in the top-level ``keywords/``
folder of the source tree; the wheel carries them as ``deepcrawl/_keywords`` (hatch
``force-include``), so the loader looks inside the package first and in the checkout second.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from deepcrawl.errors import ConfigError

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

__all__ = [
    "available_lists",
    "bundled_list",
    "frequent_words",
    "keyword_dir",
    "load_word_list",
    "parse_word_list",
    "stopwords",
]

#: Folder name of the lists inside the installed package (see pyproject's force-include).
PACKAGE_DIR = "_keywords"
#: Folder of the lists in a source checkout, relative to the repository root.
CHECKOUT_DIR = Path(__file__).resolve().parents[2] / "keywords"
_SUFFIX = ".txt"
_MAX_BYTES = 50 * 1024 * 1024


def keyword_dir() -> Traversable:
    """The folder holding the bundled lists: the package's copy, else the checkout's.

    Raises:
        ConfigError: neither exists (a broken installation).
    """
    packaged = resources.files("deepcrawl") / PACKAGE_DIR
    if packaged.is_dir():
        return packaged
    if CHECKOUT_DIR.is_dir():
        return CHECKOUT_DIR
    raise ConfigError(
        f"keyword lists not found (neither deepcrawl/{PACKAGE_DIR} nor {CHECKOUT_DIR}); "
        "reinstall deepcrawl"
    )


def parse_word_list(text: str) -> list[str]:
    """Split a list's text into entries: one a line, ``#`` comments and blanks skipped.

    Inner whitespace of a phrase is collapsed to one space; duplicates (case-insensitive) are
    dropped, the first occurrence kept, so the list's order is preserved.
    """
    seen: set[str] = set()
    words: list[str] = []
    for raw in text.lstrip("\ufeff").splitlines():
        line = " ".join(raw.split())
        if not line or line.startswith("#"):
            continue
        key = line.casefold()
        if key not in seen:
            seen.add(key)
            words.append(line)
    return words


def load_word_list(path: str | Path) -> list[str]:
    """Read a user's keyword file (``--keywords FILE``) in the lists' format.

    Args:
        path: the file to read.

    Returns:
        Its entries, in file order, without comments, blanks and duplicates.

    Raises:
        ConfigError: the file is missing, a folder, unreadable, too large, not UTF-8 text, or
            holds no entry; the message names the file.
    """
    file = Path(path)
    where = f"keyword file {str(file)!r}"
    try:
        if file.is_dir():
            raise ConfigError(f"{where} is a folder, not a file")
        size = file.stat().st_size
        if size > _MAX_BYTES:
            raise ConfigError(f"{where} is too large ({size} bytes; at most {_MAX_BYTES})")
        data = file.read_bytes()
    except FileNotFoundError as exc:
        raise ConfigError(f"{where} does not exist") from exc
    except PermissionError as exc:
        raise ConfigError(f"{where} cannot be read: permission denied") from exc
    except OSError as exc:
        raise ConfigError(f"{where} cannot be read: {exc.strerror or exc}") from exc
    if b"\x00" in data:
        raise ConfigError(f"{where} is a binary file, not a UTF-8 word list")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(
            f"{where} is not UTF-8 text (bad byte at offset {exc.start}); save it as UTF-8"
        ) from exc
    words = parse_word_list(text)
    if not words:
        raise ConfigError(f"{where} holds no keyword (one word or phrase a line, # comments)")
    return words


def available_lists() -> list[str]:
    """Names of the bundled lists (file names without ``.txt``), sorted."""
    return sorted(
        entry.name.removesuffix(_SUFFIX)
        for entry in keyword_dir().iterdir()
        if entry.name.endswith(_SUFFIX)
    )


@functools.cache
def bundled_list(name: str) -> tuple[str, ...]:
    """A bundled list by name (``"en-frequent"``, ``"en-stopwords"``, ``"en-cameras"``).

    Raises:
        ConfigError: no bundled list has this name; the message lists those that exist.
    """
    entry = keyword_dir() / f"{name}{_SUFFIX}"
    if not entry.is_file():
        known = ", ".join(available_lists()) or "none"
        raise ConfigError(f"no bundled keyword list {name!r} (available: {known})")
    return tuple(parse_word_list(entry.read_text(encoding="utf-8")))


def frequent_words(lang: str = "en") -> tuple[str, ...]:
    """The language's frequent-word list, most frequent first (the cold-start queries).

    Raises:
        ConfigError: no ``<lang>-frequent.txt`` is bundled.
    """
    return bundled_list(f"{lang}-frequent")


def stopwords(lang: str = "en") -> frozenset[str]:
    """The language's stop words, lower-cased; empty when no ``<lang>-stopwords.txt`` exists."""
    try:
        return frozenset(word.casefold() for word in bundled_list(f"{lang}-stopwords"))
    except ConfigError:
        return frozenset()
