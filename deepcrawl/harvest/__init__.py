"""Many sites at once, on a job queue: ``deepcrawl harvest`` and ``deepcrawl worker``.

* :mod:`~deepcrawl.harvest.sites` — the sites file (text, TOML or CSV);
* :mod:`~deepcrawl.harvest.coordinator` — :class:`Harvest`, the coordinator and one delivery
  point of a harvest (``OUT/<site>/pages.jsonl``, ``OUT/harvest.json``, the live table);
* :mod:`~deepcrawl.harvest.jobs` — the two jobs, a site's crawl and a batch of URLs to fetch;
* :mod:`~deepcrawl.harvest.engine` — the jobs on procrastinate (PostgreSQL), with the sweep
  that runs a dead worker's jobs again;
* :mod:`~deepcrawl.harvest.runner` — the same jobs in one process (SQLite);
* :mod:`~deepcrawl.harvest.worker` — ``deepcrawl worker``, and a ``deepcrawl crawl`` on
  PostgreSQL's own fetching.

Members are imported on first use (the CLI's ``--help`` stays quick).
"""

from typing import TYPE_CHECKING

from deepcrawl._lazy import lazy_getattr

if TYPE_CHECKING:
    from deepcrawl.harvest.coordinator import HARVEST_FILE, Harvest, run_harvest
    from deepcrawl.harvest.sites import SiteSpec, read_sites, site_names
    from deepcrawl.harvest.status import HarvestStatus, SiteStatus
    from deepcrawl.harvest.worker import WorkerReport, run_worker, shared_fetching

__all__ = [
    "HARVEST_FILE",
    "Harvest",
    "HarvestStatus",
    "SiteSpec",
    "SiteStatus",
    "WorkerReport",
    "read_sites",
    "run_harvest",
    "run_worker",
    "shared_fetching",
    "site_names",
]

_LAZY = {
    "HARVEST_FILE": "deepcrawl.harvest.coordinator",
    "Harvest": "deepcrawl.harvest.coordinator",
    "HarvestStatus": "deepcrawl.harvest.status",
    "SiteSpec": "deepcrawl.harvest.sites",
    "SiteStatus": "deepcrawl.harvest.status",
    "WorkerReport": "deepcrawl.harvest.worker",
    "read_sites": "deepcrawl.harvest.sites",
    "run_harvest": "deepcrawl.harvest.coordinator",
    "run_worker": "deepcrawl.harvest.worker",
    "shared_fetching": "deepcrawl.harvest.worker",
    "site_names": "deepcrawl.harvest.sites",
}

__getattr__ = lazy_getattr(__name__, globals(), _LAZY)
