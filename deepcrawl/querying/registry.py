"""The rules by name, and the loop's rules made from the names ``querying.rules`` lists.

The order is the loop's: the first rule that decides ends a round (:mod:`~deepcrawl.querying.rule`).
Adding a kind of stop or of list to read is one :class:`~deepcrawl.querying.rule.Rule` here and
its name in ``querying.rules``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from deepcrawl.errors import ConfigError
from deepcrawl.querying.reading import (
    CompleteCutList,
    DeepenLists,
    EmptyQuery,
    FrameFirst,
    NextWord,
    ReadOnCutLists,
    SplitCutLists,
    StopwordProbe,
)
from deepcrawl.querying.runaway import Runaway
from deepcrawl.querying.schedule import SourceSchedule
from deepcrawl.querying.stops import (
    CoverageEstimate,
    FruitlessRun,
    ListOfEverything,
    NumberedKeys,
    TotalsCovered,
    WholeListsEstimate,
    WordsSpent,
)

if TYPE_CHECKING:
    from deepcrawl.querying.rule import Rule
    from deepcrawl.settings import Settings

__all__ = ["RULES", "make_rules"]

#: Every rule, by its name.
RULES: dict[str, type[Rule]] = {
    rule.name: rule
    for rule in (
        Runaway,
        EmptyQuery,
        StopwordProbe,
        SourceSchedule,
        FruitlessRun,
        WholeListsEstimate,
        ListOfEverything,
        FrameFirst,
        CompleteCutList,
        ReadOnCutLists,
        SplitCutLists,
        CoverageEstimate,
        TotalsCovered,
        NumberedKeys,
        NextWord,
        DeepenLists,
        WordsSpent,
    )
}


def make_rules(settings: Settings) -> tuple[Rule, ...]:
    """The rules ``querying.rules`` names, in its order, each made afresh for one loop.

    Raises:
        ConfigError: a name no rule has.
    """
    rules: list[Rule] = []
    for name in settings.querying.rules:
        cls = RULES.get(name)
        if cls is None:
            known = ", ".join(RULES)
            raise ConfigError(f"querying.rules: no rule is named {name!r} (the rules: {known})")
        rules.append(SplitCutLists(settings) if cls is SplitCutLists else cls())
    return tuple(rules)
