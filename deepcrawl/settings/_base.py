"""What every settings section shares, and the constants around them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

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


class Section(BaseModel):
    """One settings section: unknown keys are errors, values are frozen once validated."""

    model_config = ConfigDict(extra="forbid", frozen=True, validate_default=True)
