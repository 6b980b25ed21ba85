"""What every settings section shares: the base class, the user marker, the renamed keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, TypeVar

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from pydantic.fields import FieldInfo

__all__ = [
    "CONFIG_FILE_ENV",
    "DEFAULT_CONFIG_FILE",
    "QUIET_CHROMIUM_ARGS",
    "RENAMED",
    "USER",
    "ForUsers",
    "Section",
    "User",
    "for_users",
]

CONFIG_FILE_ENV = "DEEPCRAWL_CONFIG"
DEFAULT_CONFIG_FILE = "deepcrawl.toml"

#: Flags that stop Chromium from calling home at every start (no network here, and no need).
QUIET_CHROMIUM_ARGS = (
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)

#: Settings that had another name, ``section.key`` → ``section.key``: given by the old name
#: (``--set``, the TOML file, the environment, code), they fail with a line naming the new one.
RENAMED: dict[str, str] = {
    "crawl.lease_s": "crawl.worker_lease_s",
    "keywords.max_queries": "querying.max_queries",
    "keywords.saturation_window": "querying.saturation_window",
    "keywords.max_result_pages": "querying.max_result_pages",
    "keywords.max_cost": "querying.max_cost",
    "keywords.paging_min_new": "querying.paging_min_new",
    "keywords.deepen_min_new": "querying.deepen_min_new",
    "crawl.stop_checked_records": "querying.stop_checked_records",
    "crawl.stop_fruitless_queries": "querying.stop_fruitless_queries",
}


@dataclass(frozen=True, slots=True)
class ForUsers:
    """Marks a setting its user sets (politeness, access, budgets, storage, output …), as
    against a tuning knob: ``deepcrawl settings --user`` lists these, and the README documents
    them (``scripts/docs/reference.py``, the documentation site's settings reference).

    Attributes:
        shown_default: how the README shows a default computed at run time (empty: the value).
    """

    shown_default: str = ""


#: The marker of most user settings: ``max_pages: User[int | None] = None``.
USER = ForUsers()

T = TypeVar("T")
User = Annotated[T, USER]


def for_users(field: FieldInfo) -> ForUsers | None:
    """The user marker of a settings field, None for a tuning knob."""
    return next((m for m in field.metadata if isinstance(m, ForUsers)), None)


class Section(BaseModel):
    """One settings section: unknown keys are errors, values are frozen once validated, and
    each field's docstring is its description (``deepcrawl settings``, the README)."""

    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_default=True, use_attribute_docstrings=True
    )
