"""Single-token keys that scope full-text (Lucene) queries, and escaping of user text.

Full-text indexes cannot be filtered by a property after the fact without losing hits, so the
bank id and the tags are indexed as fields of the same index and put in the Lucene query. The
analyzers split ids on punctuation ("my-bank" → my, bank) and stem words, so each id becomes
one opaque token: hex of its UTF-8 bytes between a letter prefix and a digit suffix (digits at
the end are never stemmed, letters+digits are never split).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

UNTAGGED = "untagged0"
_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
_LUCENE_OPERATORS = re.compile(r"\b(AND|OR|NOT|TO)\b")


def bank_key(bank_id: str) -> str:
    """The bank's token in full-text fields (``bank_key``)."""
    return f"bk{bank_id.encode().hex()}0"


def tag_token(tag: str) -> str:
    """One tag's token in the ``tag_tokens`` field."""
    return f"tg{tag.encode().hex()}0"


def count_token(n: int) -> str:
    """Token recording how many tags a fact has (for ``exact`` tag matching)."""
    return f"tagcount{n}x0"


def tag_tokens(tags: Iterable[str]) -> str:
    """The ``tag_tokens`` field of a fact: its tag tokens plus a tag-count token."""
    unique = sorted(set(tags))
    if not unique:
        return f"{UNTAGGED} {count_token(0)}"
    return " ".join([*(tag_token(t) for t in unique), count_token(len(unique))])


# The stop words of Lucene's English analyzer (the full-text indexes' analyzer): a query made
# only of these (and punctuation) has nothing left to search for.
ANALYZER_STOP_WORDS = frozenset(
    """
    a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with
    """.split()  # noqa: SIM905 - a word list reads better as words
)
_WORDS = re.compile(r"\w+")


def searchable(text: str) -> bool:
    """True when ``text`` has a word the full-text index can match."""
    return any(w not in ANALYZER_STOP_WORDS for w in _WORDS.findall(text.lower()))


def escape_lucene(text: str) -> str:
    """Escape Lucene syntax so user text is searched as words, never parsed as a query."""
    escaped = _LUCENE_SPECIAL.sub(r"\\\1", text)
    # Upper-case operators would still be read as operators; lower-casing makes them words.
    return _LUCENE_OPERATORS.sub(lambda m: m.group(1).lower(), escaped)
