"""The crawl on zoo seeds, as ``deepcrawl bench --suite zoo`` runs it: served, crawled as a child
process, scored against the seed's truth."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from deepcrawl.bench.zoo import run_zoo_bench
from deepcrawl.settings import load_settings

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.slow
def test_a_get_form_whose_own_submit_buttons_turn_the_pages_is_read_to_its_end(
    tmp_path: Path,
) -> None:
    # seed 3 draws a GET form whose result page is the form again, its pages the form's own
    # submit buttons (`name=go value=2` ... and "Next" beside a hidden page number), another
    # kind at three times the records' share, echo and session parameters, print twins, views
    settings = load_settings().with_overrides(bench={"zoo_timeout_s": 240.0})
    (run,) = run_zoo_bench([3], settings, records=250, out=tmp_path)
    assert run.config["pager"] == "get-buttons"
    assert run.stopped, run.stop
    assert run.recall >= 0.98, run
    assert run.precision >= 0.99, run
    assert run.passes()["claim_true"], run
    assert run.passes()["size"], run
