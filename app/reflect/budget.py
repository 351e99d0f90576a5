"""How much work each reflect budget buys: quoted items offline, iterations and tokens online.

``low``/``mid``/``high`` are the names recall uses; reflect passes the same name to each recall
it runs, so one word sets the depth of both.
"""

from __future__ import annotations

from types import MappingProxyType

import msgspec

from app.recall.recipes import Budget


class ReflectBudget(msgspec.Struct, frozen=True, kw_only=True):
    """The bounds of one reflect."""

    name: Budget
    # Offline: distinct sources quoted (the facts of one chunk count once).
    quotes: int
    # Agent loop: LLM calls that may ask for tools, then one last call for the answer.
    max_iterations: int
    # Agent loop: prompt + completion tokens over every call; past it, the model must answer.
    max_total_tokens: int
    # Results each recall tool call hands the model.
    tool_results: int


BUDGETS = MappingProxyType(
    {
        # A quick lookup: the top few sources, two rounds of tools.
        "low": ReflectBudget(
            name="low", quotes=5, max_iterations=3, max_total_tokens=16_000, tool_results=8
        ),
        # recall's top-10 depth, quoted by distinct source.
        "mid": ReflectBudget(
            name="mid", quotes=10, max_iterations=6, max_total_tokens=40_000, tool_results=12
        ),
        "high": ReflectBudget(
            name="high", quotes=20, max_iterations=10, max_total_tokens=80_000, tool_results=20
        ),
    }
)


def budget_for(name: Budget) -> ReflectBudget:
    """The bounds of a named budget."""
    return BUDGETS[name]
