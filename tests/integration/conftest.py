"""Database fixtures: every storage test runs on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from deepcrawl_fixtures.postgres import PostgresServer

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One throw-away PostgreSQL server for the whole session (started on 127.0.0.1)."""
    with PostgresServer() as server:
        yield server


_counter = iter(range(1_000_000))


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database on each backend."""
    return new_database(request.param, request, tmp_path)


@pytest.fixture
def make_db(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[str], str]:
    """Factory: ``make_db("sqlite" | "postgres")`` gives the URL of a fresh, empty database."""
    return lambda backend: new_database(backend, request, tmp_path)


def new_database(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """URL of a fresh, empty database on ``backend`` (``sqlite`` or ``postgres``)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'crawl.db'}"
    import psycopg

    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = f"t{next(_counter)}"
    with psycopg.connect(
        f"host=127.0.0.1 port={server.port} user={server.user} dbname={server.database}",
        autocommit=True,
    ) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql+psycopg://{server.user}@127.0.0.1:{server.port}/{name}"
