"""The storage guard names the operation and the database, its password masked, and only once
an error needs the name (a crawl opens a guard for every statement it runs)."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from sqlalchemy.exc import OperationalError

from deepcrawl.errors import StorageError
from deepcrawl.storage.guard import StorageGuard


def test_an_error_names_the_operation_and_the_database_without_its_password() -> None:
    engine = sa.create_engine("postgresql+psycopg://me:secret@db.test/crawl")  # not connected
    with (
        pytest.raises(
            StorageError, match=r"cannot read page in .*db\.test/crawl: disk I/O"
        ) as info,
        StorageGuard.of(engine, "read page"),
    ):
        raise OperationalError("SELECT 1", {}, Exception("disk I/O error"))
    assert "secret" not in str(info.value)


def test_a_guard_left_without_error_never_renders_the_database_url() -> None:
    class Engine:
        @property
        def url(self) -> str:
            raise AssertionError("rendered")

    with StorageGuard.of(Engine(), "read page"):  # type: ignore[arg-type]
        pass
