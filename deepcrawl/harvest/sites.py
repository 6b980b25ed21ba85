"""The sites file of ``deepcrawl harvest``: one site a line, or a small TOML or CSV file.

Three formats, told by the file's suffix:

* **text** (any other suffix): one start URL a line, optionally followed by the crawl's own
  options for that site, quoted as a shell would (``--like URL``, ``--form N|SELECTOR``,
  ``--field NAME=VALUE``, repeatable, and ``--name NAME``, the site's folder in the output);
  blank lines and lines starting with ``#`` are skipped::

      https://books.example/
      https://shop.example/search --like /item/17 --field "category=all books"

* **TOML** (``.toml``): one ``[[site]]`` table a site, keys ``url``, ``like`` (a URL or a
  list), ``form``, ``fields`` (a table of NAME = VALUE) and ``name``;
* **CSV** (``.csv``): a header row, columns ``url`` and any of ``like`` (URLs separated by
  spaces), ``form``, ``fields`` (``NAME=VALUE`` items separated by ``;``) and ``name``.

:func:`read_sites` checks every entry before anything starts (a bad URL, a ``--like`` on
another host, a malformed field, a URL with a password: :func:`_no_credentials` says why) and
names the file and line of the first bad one.
"""

from __future__ import annotations

import csv
import re
import shlex
import tomllib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from deepcrawl.browser.scope import check_url, host_of
from deepcrawl.errors import ConfigError
from deepcrawl.forms.fields import parse_field_values, parse_form_choice
from deepcrawl.userinfo import redact, split_userinfo

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = ["SiteSpec", "read_sites", "site_names"]

#: Longest start URL or ``--like`` URL of a sites file (the crawl's own check applies too).
_MAX_URL = 4096

_TEXT_OPTIONS = {"--like": "like", "--form": "form", "--field": "fields", "--name": "name"}


@dataclass(frozen=True, slots=True)
class SiteSpec:
    """One site of a harvest: its start URL and the crawl's options for it.

    Attributes:
        url: the start URL (checked, its host in ASCII).
        like: example URLs of the wanted pages (absolute, on the start URL's host).
        form: the form to query (a number or a CSS selector), None: the critic's choice.
        fields: field values fixed for every query.
        name: the site's folder in the output; None: made from the URL (:func:`site_names`).
    """

    url: str
    like: tuple[str, ...] = ()
    form: str | None = None
    fields: dict[str, str] = field(default_factory=dict)
    name: str | None = None

    def options(self) -> dict[str, Any]:
        """The options as stored with the harvest (JSON)."""
        return {"like": list(self.like), "form": self.form, "fields": dict(self.fields)}


def read_sites(path: Path) -> list[SiteSpec]:
    """The sites of a sites file (module docstring), every entry checked.

    Raises:
        ConfigError: the file cannot be read, is empty, or an entry is malformed (a bad URL,
            an unknown option, a ``--like`` URL on another host, a start URL given twice);
            the message names the file and the entry.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the sites file {path}: {exc}") from exc
    suffix = path.suffix.lower()
    entries = (
        _toml_entries(path, text)
        if suffix == ".toml"
        else _csv_entries(path, text)
        if suffix == ".csv"
        else _text_entries(path, text)
    )
    sites: list[SiteSpec] = []
    seen: dict[str, str] = {}
    for where, raw in entries:
        site = _spec(raw, f"{path}, {where}")
        if site.url in seen:
            raise ConfigError(f"{path}, {where}: {site.url} is given twice (also {seen[site.url]})")
        seen[site.url] = where
        sites.append(site)
    if not sites:
        raise ConfigError(f"the sites file {path} names no site (one start URL a line)")
    return sites


def _text_entries(path: Path, text: str) -> Iterable[tuple[str, dict[str, Any]]]:
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        where = f"line {number}"
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise ConfigError(f"{path}, {where}: {exc}") from exc
        raw: dict[str, Any] = {"url": words[0], "like": [], "fields": []}
        rest = iter(words[1:])
        for option in rest:
            key = _TEXT_OPTIONS.get(option)
            if key is None:
                known = ", ".join(_TEXT_OPTIONS)
                raise ConfigError(f"{path}, {where}: unknown option {option!r} (known: {known})")
            value = next(rest, None)
            if value is None:
                raise ConfigError(f"{path}, {where}: {option} needs a value")
            if key in ("like", "fields"):
                raw[key].append(value)
            else:
                raw[key] = value
        yield where, raw


def _toml_entries(path: Path, text: str) -> Iterable[tuple[str, dict[str, Any]]]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"the sites file {path} is no TOML: {exc}") from exc
    tables = data.get("site", [])
    if not isinstance(tables, list) or set(data) - {"site"}:
        raise ConfigError(f"{path}: expected [[site]] tables only (url, like, form, fields, name)")
    for number, table in enumerate(tables, 1):
        where = f"site {number}"
        unknown = set(table) - {"url", "like", "form", "fields", "name"}
        if unknown:
            raise ConfigError(f"{path}, {where}: unknown key {sorted(unknown)[0]!r}")
        like = table.get("like", [])
        fields = table.get("fields", {})
        if not isinstance(fields, dict):
            raise ConfigError(f"{path}, {where}: fields is a table of NAME = VALUE")
        yield (
            where,
            {
                "url": table.get("url"),
                "like": [like] if isinstance(like, str) else like,
                "form": None if table.get("form") is None else str(table["form"]),
                "fields": [f"{k}={v}" for k, v in fields.items()],
                "name": table.get("name"),
            },
        )


def _csv_entries(path: Path, text: str) -> Iterable[tuple[str, dict[str, Any]]]:
    rows = csv.DictReader(text.splitlines())
    columns = set(rows.fieldnames or ())
    if "url" not in columns:
        raise ConfigError(f"{path}: the header row names no 'url' column")
    unknown = columns - {"url", "like", "form", "fields", "name"}
    if unknown:
        raise ConfigError(f"{path}: unknown column {sorted(unknown)[0]!r}")
    for number, row in enumerate(rows, 2):
        if not (row.get("url") or "").strip():
            continue
        fields = [item for item in (row.get("fields") or "").split(";") if item.strip()]
        yield (
            f"line {number}",
            {
                "url": row["url"],
                "like": (row.get("like") or "").split(),
                "form": (row.get("form") or "").strip() or None,
                "fields": [item.strip() for item in fields],
                "name": (row.get("name") or "").strip() or None,
            },
        )


def _spec(raw: dict[str, Any], where: str) -> SiteSpec:
    url = raw.get("url")
    if not isinstance(url, str) or not url.strip():
        raise ConfigError(f"{where}: no start URL")
    try:
        _no_credentials(url)
        start = check_url(url.strip(), max_length=_MAX_URL, what="start URL")
        like = []
        for example in raw.get("like") or []:
            _no_credentials(str(example))
            absolute = check_url(urljoin(start, str(example).strip()), max_length=_MAX_URL,
                                 what="--like")  # fmt: skip
            if host_of(absolute) != host_of(start):
                raise ConfigError(f"--like {absolute} is not on the start URL's host")
            like.append(absolute)
        form = raw.get("form")
        parse_form_choice(form)
        fields = parse_field_values(raw.get("fields") or [])
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from exc
    name = raw.get("name")
    if name is not None and not _SAFE_NAME.fullmatch(str(name)):
        raise ConfigError(f"{where}: name {name!r}: letters, digits, '.', '-' and '_' only")
    return SiteSpec(start, tuple(like), form, fields, None if name is None else str(name))


_SAFE_NAME = re.compile(r"[A-Za-z0-9._-]{1,100}")


def _no_credentials(url: str) -> None:
    """Refuse a user name and password in a sites file's URL.

    A harvest stores its sites' URLs and crawls them in worker processes, which read them
    from the database: the credentials would have to be stored to reach them. They are given
    as settings instead, which every worker reads too.
    """
    if split_userinfo(url)[1] is not None:
        raise ConfigError(
            f"{redact(split_userinfo(url)[0])}: no user name or password in a sites file's "
            "URL (the harvest stores its URLs); give them to the harvest and its workers as "
            "--credential-origin scheme://user:password@host[:port] (or in the setting "
            "access.credential_origins)"
        )


def site_names(sites: Iterable[SiteSpec]) -> list[str]:
    """Each site's folder in the output: its ``name``, or its host (and port, and path when
    the start URL has one), made safe; a name taken already gets ``-2``, ``-3`` …"""
    names: list[str] = []
    for site in sites:
        base = site.name or _name_of(site.url)
        name, n = base, 1
        while name in names:
            n += 1
            name = f"{base}-{n}"
        names.append(name)
    return names


def _name_of(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "site").strip(".")
    name = host if parts.port is None else f"{host}-{parts.port}"
    path = parts.path.strip("/")
    if path:
        name = f"{name}-{path}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:100].strip("._-") or "site"
