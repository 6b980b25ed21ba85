"""Opening a database: URL checks, engine set-up, schema creation and the schema version.

Any SQLAlchemy URL works; two get special care:

* SQLite (the default): the file's folder is created, WAL journal mode lets readers (``deepcrawl
  status``, an extractor) work while the crawl writes, and foreign keys are enforced.
* PostgreSQL: ``postgresql://`` without a driver means psycopg 3 (the driver deepcrawl installs),
  not SQLAlchemy's default psycopg2.

The schema is created on first use and its version recorded in ``deepcrawl_meta``; a database
written by a newer deepcrawl is refused rather than damaged, an older one is migrated in order by
the functions in :data:`MIGRATIONS`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sqlalchemy as sa
from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError
from sqlmodel import SQLModel, create_engine

from deepcrawl.errors import NoDatabaseError, SchemaVersionError, StorageError
from deepcrawl.storage import tables as _tables  # registers the tables (and LEASE_INDEX)
from deepcrawl.storage.renormalise import renormalise_urls
from deepcrawl.userinfo import redact

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy.engine import URL, Connection

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "Engine",
    "check_database_url",
    "database_file",
    "is_shared",
    "is_shared_url",
    "open_engine",
    "safe_url",
]

# ``Engine`` is the handle of an open database (SQLAlchemy's): what :func:`open_engine` returns and
# storage's classes take (``Repository.engine``); other packages only pass it on.

#: Version of the schema this code writes. Bump it and add a migration when tables change, or
#: when what they hold changes meaning (version 5: the URL normal form; 6: the lease's holder;
#: 7: the normal form without session ids; 11: the holder is a fetch job of the job queue).
SCHEMA_VERSION = 12

_log = logging.getLogger(__name__)


def _to_v2(conn: Connection) -> None:
    """Version 2: the frontier's lease index follows the lease order (priority descending).

    The new tables of version 2 (``frontier_host``, ``crawl_worker``) are made by ``create_all``.
    """
    conn.execute(sa.text("DROP INDEX IF EXISTS ix_frontier_ready"))
    _tables.LEASE_INDEX.create(conn, checkfirst=True)


def _to_v3(conn: Connection) -> None:
    """Version 3: a query keeps the field values it was sent with (``query.field_values``)."""
    if "field_values" not in {column["name"] for column in sa.inspect(conn).get_columns("query")}:
        conn.execute(
            sa.text("ALTER TABLE query ADD COLUMN field_values JSON NOT NULL DEFAULT '{}'")
        )


def _to_v4(conn: Connection) -> None:
    """Version 4: a failed page keeps its error's class and the attempts made
    (``deepcrawl failures``); the new ``query_end`` table is made by ``create_all``."""
    have = {column["name"] for column in sa.inspect(conn).get_columns("page")}
    for name, kind in (("error_class", "VARCHAR(64)"), ("attempts", "INTEGER NOT NULL DEFAULT 0")):
        if name not in have:
            conn.execute(sa.text(f"ALTER TABLE page ADD COLUMN {name} {kind}"))


def _to_v5(conn: Connection) -> None:
    """Version 5: stored URL keys in the normal form of IDNA hosts and w3lib's encoding
    (:mod:`deepcrawl.storage.renormalise`); says what it changed."""
    done = renormalise_urls(conn)
    _log.warning(
        "database %s: stored URLs re-written in the new URL normal form (schema 4 -> 5): %s",
        safe_url(str(conn.engine.url)),
        done.summary(),
    )


def _to_v6(conn: Connection) -> None:
    """Version 6: a lease names the process holding it (``frontier.holder``), so that a dead
    process's leases come back at once; the ``session_param`` table (the parameters a crawl
    learnt to carry a session) is made by ``create_all``."""
    if "holder" not in {column["name"] for column in sa.inspect(conn).get_columns("frontier")}:
        conn.execute(sa.text("ALTER TABLE frontier ADD COLUMN holder INTEGER"))


def _to_v7(conn: Connection) -> None:
    """Version 7: stored URL keys without session ids (``deepcrawl.urls.SESSION_PARAMS``, the
    defaults): rows that now share a key are merged (:mod:`deepcrawl.storage.renormalise`)."""
    done = renormalise_urls(conn)
    _log.warning(
        "database %s: stored URLs re-written without session ids (schema 6 -> 7): %s",
        safe_url(str(conn.engine.url)),
        done.summary(),
    )


def _to_v8(conn: Connection) -> None:
    """Version 8: a page keeps its record's canonical URL and its main text's fingerprint; a
    learnt parameter may be dropped whatever its value (``session_param.anyway``)."""
    have = {column["name"] for column in sa.inspect(conn).get_columns("page")}
    for name, kind in (("canonical_url", "VARCHAR(4096)"), ("fingerprint", "VARCHAR(32)")):
        if name not in have:
            conn.execute(sa.text(f"ALTER TABLE page ADD COLUMN {name} {kind}"))
            conn.execute(sa.text(f"CREATE INDEX IF NOT EXISTS ix_page_{name} ON page ({name})"))
    if "anyway" not in {c["name"] for c in sa.inspect(conn).get_columns("session_param")}:
        conn.execute(
            sa.text("ALTER TABLE session_param ADD COLUMN anyway BOOLEAN NOT NULL DEFAULT FALSE")
        )


def _to_v9(conn: Connection) -> None:
    """Version 9: a query keeps the result count its list reported (``query.results_reported``)."""
    if "results_reported" not in {c["name"] for c in sa.inspect(conn).get_columns("query")}:
        conn.execute(sa.text("ALTER TABLE query ADD COLUMN results_reported INTEGER"))


def _to_v10(conn: Connection) -> None:
    """Version 10: a site's querying is kept as its events (the ``querying_event`` table, made
    by ``create_all``); a crawl stored before it resumes from its stored queries."""


def _to_v11(conn: Connection) -> None:
    """Version 11: a leased URL's holder is the job queue's fetch job, no longer a process's
    ``crawl_worker`` row: the leases of earlier runs are queued again. The harvest's tables
    (``harvest_site``, ``host_clock``) are made by ``create_all``."""
    frontier = _tables.FrontierEntry.__table__  # type: ignore[attr-defined]
    conn.execute(
        sa.update(frontier)
        .where(frontier.c.state == "leased")
        .values(state="queued", holder=None, ready_at=datetime.now(UTC))
    )


def _to_v12(conn: Connection) -> None:
    """Version 12: stored URL keys whose query separates its parameters by ``;``
    (``?p=repo;a=commit;h=…``) sorted and stripped of session ids as ``&``-separated ones are
    (:mod:`deepcrawl.urls._query`): rows that now share a key are merged
    (:mod:`deepcrawl.storage.renormalise`)."""
    done = renormalise_urls(conn)
    _log.warning(
        "database %s: stored URLs re-written with ';' read as a parameter separator "
        "(schema 11 -> 12): %s",
        safe_url(str(conn.engine.url)),
        done.summary(),
    )


#: ``MIGRATIONS[n]`` upgrades a database from version ``n`` to ``n + 1``.
MIGRATIONS: dict[int, Callable[[Connection], None]] = {
    1: _to_v2,
    2: _to_v3,
    3: _to_v4,
    4: _to_v5,
    5: _to_v6,
    6: _to_v7,
    7: _to_v8,
    8: _to_v9,
    9: _to_v10,
    10: _to_v11,
    11: _to_v12,
}

#: Key of the PostgreSQL advisory lock under which a process creates or migrates the schema.
_SCHEMA_LOCK = 0x6463_0003

#: Seconds after which a pooled server connection is replaced.
_RECYCLE_S = 300

_DRIVERLESS = {"postgresql": "postgresql+psycopg", "postgres": "postgresql+psycopg"}


def safe_url(url: str) -> str:
    """The URL with any password masked, for messages: :func:`deepcrawl.userinfo.redact`, the
    mask of every output (a URL SQLAlchemy cannot read is masked too)."""
    return redact(url)


def database_file(url: str) -> Path:
    """The file a SQLite ``url`` names, as written (``.`` when it names none)."""
    return Path(make_url(url).database or ".")


def is_shared(engine: Engine) -> bool:
    """Whether many processes may share a crawl in this database: PostgreSQL (``deepcrawl
    worker``) — on SQLite one process crawls a site."""
    return engine.dialect.name == "postgresql"


def is_shared_url(url: str) -> bool:
    """Whether a database URL names a database many processes may share (PostgreSQL), as
    :func:`is_shared` says of an open engine.

    Raises:
        StorageError: the URL is malformed.
    """
    return _parse(url).get_backend_name() == "postgresql"


def _parse(url: str) -> URL:
    try:
        parsed = make_url(url)
    except ArgumentError as exc:
        raise StorageError(
            f"invalid database URL {url!r}: expected e.g. sqlite:///crawl.db or "
            "postgresql://user@host/dbname"
        ) from exc
    if parsed.drivername in _DRIVERLESS:
        parsed = parsed.set(drivername=_DRIVERLESS[parsed.drivername])
    return parsed


def _sqlite_file(parsed: URL) -> Path | None:
    """The file a parsed SQLite URL names; None for memory, a ``file:`` URI, or another
    backend."""
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def check_database_url(url: str, *, write: bool = True) -> None:
    """Check a database URL before anything is created: it parses, names a known backend, and
    a SQLite file's folder exists and — to ``write`` — may be written (SQLite writes its
    journal beside the file), the file is no folder. No folder is made for a database: a
    mistyped path is an error, not a new tree of folders.

    Raises:
        StorageError: the URL is malformed, or the SQLite file's folder does not exist, is a
            file or is not writable, or the file is a folder.
    """
    from deepcrawl._paths import folder_problem

    parsed = _parse(url)
    file = _sqlite_file(parsed)
    if file is None:
        return
    shown = safe_url(url)
    if file.parent.exists() and not file.parent.is_dir():
        raise StorageError(f"cannot open database {shown}: {file.parent} is a file, not a folder")
    if not file.parent.is_dir():
        raise StorageError(
            f"cannot open database {shown}: the folder {file.parent} does not exist "
            "(create it, or give another --db)"
        )
    if file.is_dir():
        raise StorageError(f"cannot open database {shown}: {file} is a folder, not a file")
    if write and (problem := folder_problem(file.parent)) is not None:
        raise StorageError(f"cannot open database {shown}: {problem} (give another --db)")


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    # 32 MiB of page cache a connection instead of 2 MiB: the frontier's indexes of a large site
    # stay in memory, so an insert costs the same at 1M queued URLs as at 10k
    cursor.execute("PRAGMA cache_size=-32768")
    cursor.close()


def open_engine(url: str, *, durable_commits: bool = True, create: bool = True) -> Engine:
    """Create an engine for ``url``, create or migrate the schema, and check its version.

    ``durable_commits=False`` turns PostgreSQL's ``synchronous_commit`` off for the engine's
    sessions (see ``StorageSettings.durable_commits``); SQLite is always WAL + NORMAL.
    ``create=False`` is for commands that only read: a SQLite file that does not exist is not
    made (a server database is never created by deepcrawl; its tables are, on first use).

    Raises:
        StorageError: the URL is malformed, names an unknown driver, a SQLite file's folder
            does not exist (:func:`check_database_url`), or the database cannot be reached or
            written.
        NoDatabaseError: ``create`` is False and the SQLite file does not exist.
        SchemaVersionError: the database was written by a newer deepcrawl.
    """
    parsed = _parse(url)
    shown = safe_url(url)
    kwargs: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        file = _sqlite_file(parsed)
        if file is not None and not create and not file.exists():
            raise NoDatabaseError(f"no database at {shown}: nothing was crawled into it yet")
        check_database_url(url, write=create)
        kwargs["connect_args"] = {"check_same_thread": False}
    else:
        # No ping per checkout: it doubled the round trips of a worker's short transactions.
        # Connections are renewed every ``_RECYCLE_S`` instead; a server restart fails the
        # transaction in flight (a StorageError), and the crawl or worker is run again.
        kwargs["pool_recycle"] = _RECYCLE_S
        if parsed.get_backend_name() == "postgresql":
            # psycopg prepares a statement on its 5th run, and PostgreSQL may then switch to a
            # generic plan: for the frontier's lease that is a sort of every queued URL (229 ms
            # at 100k instead of 1 ms). Custom plans see the values and keep the lease index.
            options = "-c plan_cache_mode=force_custom_plan"
            if not durable_commits:
                options += " -c synchronous_commit=off"
            kwargs["connect_args"] = {"options": options}
    try:
        engine = create_engine(parsed, **kwargs)
    except NoSuchModuleError as exc:
        raise StorageError(f"unsupported database URL {shown}: unknown dialect or driver") from exc
    except (ArgumentError, ImportError) as exc:
        raise StorageError(f"cannot use database URL {shown}: {exc}") from exc
    if parsed.get_backend_name() == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    try:
        _prepare_schema(engine)
    except SchemaVersionError:
        engine.dispose()
        raise
    except SQLAlchemyError as exc:
        engine.dispose()
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
        raise StorageError(f"cannot open database {shown}: {reason}") from exc
    return engine


def _prepare_schema(engine: Engine) -> None:
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            # one process at a time: a crawl and its workers started together on a new database
            # would each create the tables, and the second fail on the first's types
            conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
        # create_all only adds missing tables; changed tables are the migrations' job.
        SQLModel.metadata.create_all(conn)
        found_text = conn.execute(_GET_VERSION).scalar()
        if found_text is None:
            conn.execute(_SET_VERSION, {"v": str(SCHEMA_VERSION)})
            return
        found = int(found_text)
        if found > SCHEMA_VERSION:
            raise SchemaVersionError(
                f"database {safe_url(str(engine.url))} has schema version {found}, newer than "
                f"this deepcrawl ({SCHEMA_VERSION}): upgrade deepcrawl"
            )
        for version in range(found, SCHEMA_VERSION):
            MIGRATIONS[version](conn)
        if found != SCHEMA_VERSION:
            conn.execute(_UPDATE_VERSION, {"v": str(SCHEMA_VERSION)})


_GET_VERSION = sa.text("SELECT value FROM deepcrawl_meta WHERE key = 'schema_version'")
_SET_VERSION = sa.text("INSERT INTO deepcrawl_meta (key, value) VALUES ('schema_version', :v)")
_UPDATE_VERSION = sa.text("UPDATE deepcrawl_meta SET value = :v WHERE key = 'schema_version'")
