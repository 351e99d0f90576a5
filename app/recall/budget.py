r"""Fill a recall answer up to ``max_tokens``.

**Token count.** Results are counted with ``estimate_tokens``, a documented, deterministic and
dependency-free rule rather than one model's tokenizer (the agent reading the answer may use any
LLM, and each tokenizer counts differently)::

    tokens(text) = max(ceil(utf8_bytes(text) / 4), words_and_punctuation(text))

- ``ceil(bytes / 4)`` is the common "about four characters a token" rule for English, and on
  bytes so that non-Latin scripts (2–4 bytes a character) count more, as tokenizers do.
- ``words_and_punctuation`` counts runs of word characters and each other non-space character
  (regex ``\w+|[^\w\s]``). It wins on short, punctuation-dense text such as dates and codes
  ("2023-05-07" is 5 pieces, not 3), which is what many facts are.

Only the fact's text is counted: ids, dates and metadata are structured fields whose rendering
is up to the caller.

**Stop, don't skip.** The walk stops at the first result that does not fit: the answer is always
a prefix of the ranking. Skipping it and continuing would fill the budget a little better, but it
would silently trade a more relevant long fact for less relevant short ones and leave a hole in
the order; a prefix keeps "these are the N best" true. ``max_tokens`` is a hard ceiling, so a
first result larger than the whole budget yields an empty answer rather than an overrun.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

import msgspec

T = TypeVar("T")

_PIECES = re.compile(r"\w+|[^\w\s]")


def estimate_tokens(text: str) -> int:
    """Tokens of ``text`` by the module's documented rule (0 for the empty string)."""
    by_bytes = math.ceil(len(text.encode("utf-8")) / 4)
    by_pieces = sum(1 for _ in _PIECES.finditer(text))
    return max(by_bytes, by_pieces)


class BudgetFill(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    """The results that fit, best first, the tokens they use, and how many were left out."""

    kept: tuple[T, ...]
    used_tokens: int
    dropped: int


def fill_budget(
    results: Iterable[T],
    text_of: Callable[[T], str],
    max_tokens: int,
    *,
    count_tokens: Callable[[str], int] = estimate_tokens,
) -> BudgetFill[T]:
    """Keep results, best first, while their texts fit in ``max_tokens``; stop at the first misfit.

    ``results`` must already be in final order; ``text_of`` gives the text to count for each.
    """
    if max_tokens < 0:
        raise ValueError("max_tokens must be >= 0")
    items = list(results)
    kept: list[T] = []
    used = 0
    for item in items:
        cost = count_tokens(text_of(item))
        if used + cost > max_tokens:
            break
        kept.append(item)
        used += cost
    return BudgetFill(kept=tuple(kept), used_tokens=used, dropped=len(items) - len(kept))
