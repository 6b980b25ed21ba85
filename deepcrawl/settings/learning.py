"""Settings of learning: the URL prototypes' label page and the link learners."""

from __future__ import annotations

from deepcrawl.settings._base import Section, User

__all__ = ["LinkLearningSettings", "PrototypeSettings"]


class PrototypeSettings(Section):
    """The label page of the URL prototypes (``deepcrawl label --web``). The prototyper's
    thresholds are its parameters (:class:`~deepcrawl.prototypes.Prototyper`), the URL normal
    form's are constants of :mod:`deepcrawl.urls`, the layout check's of
    :mod:`deepcrawl.classify.layout`."""

    label_port: int = 8765
    """Port of the ``deepcrawl label --web`` page (always on 127.0.0.1); 0: any free port."""
    thumbnails: bool = True
    """Show a screenshot of one example page per kind on the ``deepcrawl label --web`` page
    (taken with the crawl's Chromium under the probing rules: GET only, no navigation away)."""


class LinkLearningSettings(Section):
    """The link-learning strategies: ACHE's adaptive link learner (Barbosa & Freire, sections
    2-3), the apprentice (Chakrabarti et al.) and xCrawl (Shchekotykhin et al., sections 3-4).
    The papers' thresholds are constants of the strategies' modules (:mod:`deepcrawl.links`)."""

    prior: str = "builtin"
    """Prior of the link learners for finding search forms (ACHE's *Offline-Online*):
    ``"builtin"`` (paths to the forms of training sites, shipped with deepcrawl), the path of
    such a JSON file, or ``"none"`` (ACHE's *Online*: nothing known before the first form)."""
    hub_max_kinds: int = 2
    """Kinds of non-wanted pages (prototypes, else URL shapes) the normal phase tries at most as
    hubs beside the queries (:mod:`deepcrawl.links.hubs`); each try costs a request on every
    site. 0: no hub. Not from a paper."""
    discovery_strategy: str = "ache"
    """Strategy of entry-point discovery (``deepcrawl discover``, and the setup phase when the
    start page has no searchable form): ACHE, the paper written for finding forms."""
    discovery_max_requests: User[int] = 1000
    """Request budget of entry-point discovery. Not from a paper."""
    navigate_strategy: str = "ache"
    """Strategy of ``deepcrawl crawl --navigate``, which looks for the wanted records the
    queries did not return once the form is saturated."""
    navigate_max_requests: User[int] = 2000
    """Request budget of the ``--navigate`` phase. Not from a paper."""
