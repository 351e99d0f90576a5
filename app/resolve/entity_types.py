"""An entity's type as its mentions say it (decision 0010): extracted types are evidence.

A local model's type (NER, ``Mention.type_guessed``) changes from sentence to sentence for one
name, so the first one an entity was created with is no better than any later one. The type an
entity carries is the majority of its mentions' types. A type someone stated (the caller's
``entities``, an LLM extraction) is exact: any such vote outranks every guess, and a controlled
vocabulary value (a label) keeps its type whatever is said of it. Pure: plain data in and out.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from app.domain.names import type_class

# A tie among equally supported classes is broken by this fixed order, never by which mention
# came first (the same evidence must give the same type in any order). People come first: the
# commonest local-model error on a person's name is to call it an organisation or a place.
_TIE_ORDER = ("person", "organization", "place", "product", "project", "event", "concept")


def settled_type(
    current: str | None, *, is_label: bool, votes: Iterable[tuple[str | None, bool]]
) -> str | None:
    """The type an entity should carry, given its mentions' ``(type, guessed)`` votes.

    Exact votes (``guessed`` false) decide alone when there are any; otherwise the guesses do.
    The winner is the class with most votes (``type_class``; untyped votes abstain), ties by
    ``_TIE_ORDER`` then by name. The current spelling stays when its class wins; otherwise the
    winning class's most frequent spelling (ties: the smallest). No vote: ``current`` stays.
    """
    if is_label:
        return current
    typed = [(t.strip(), guessed) for t, guessed in votes if t and type_class(t)]
    exact = [t for t, guessed in typed if not guessed]
    pool = exact or [t for t, _ in typed]
    if not pool:
        return current
    classes = Counter(type_class(t) for t in pool)
    top = max(classes.values())
    tied = [c for c, n in classes.items() if n == top]
    winner = min(tied, key=_tie_rank)
    if current and type_class(current) == winner:
        return current
    spellings = Counter(t for t in pool if type_class(t) == winner)
    return min(spellings, key=lambda t: (-spellings[t], t))


def may_change_type(current: str | None, new_votes: Iterable[str | None]) -> bool:
    """Whether votes added to an entity can change the type it carries.

    ``current`` is what ``settled_type`` made of the entity's earlier votes. New votes for its
    own class (or none) only widen the winner's lead, among exact votes and guesses alike, so
    the type stands without counting the earlier ones again (hundreds, for a familiar name).
    """
    own = type_class(current)
    return any(t and type_class(t) and type_class(t) != own for t in new_votes)


def _tie_rank(cls: str) -> tuple[int, str]:
    return (_TIE_ORDER.index(cls) if cls in _TIE_ORDER else len(_TIE_ORDER), cls)
