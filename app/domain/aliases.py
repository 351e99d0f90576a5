"""The words that say "what follows is another name for what was just named".

"Ocean Probe 1 (also known as OP-1)", "Robert, aka Bob", "海洋探测器1号（简称海探1）". Three
readers use them: local extraction (to find the alias at all), the resolver (to accept a pair
of mentions as one entity) and retain (to read an alias the text states for a caller-supplied
name). They share these lists so that a phrase one of them understands, all of them do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Said between a name and its alias in running text, or inside brackets: "X, aka Y", "X (aka Y)".
INLINE_WORDS: tuple[str, ...] = (
    "also known as",
    "better known as",
    "otherwise known as",
    "formerly known as",
    "a.k.a.",
    "nicknamed",
)
# Said only inside brackets after a name: "X (short for Y)", "X (hereafter Y)".
BRACKET_WORDS: tuple[str, ...] = (
    *INLINE_WORDS,
    "known as",
    "short for",
    "short",
    "hereafter",
    "hereinafter",
    "formerly",
    "abbreviated as",
    "abbreviated",
    "called",
    "i.e.",
    "or",
)
# Said inside brackets after the alias, naming who uses it: "Eleni (Lena to her friends)".
AUDIENCE = r"to\s+(?:her|his|their|my|our|your)\s+[a-z]+"
# Chinese and Japanese introducers, in brackets or running text: "X（简称Y）", "X，又称Y".
CJK_WORDS: tuple[str, ...] = (
    "以下简称", "以下簡稱", "简称", "簡稱", "又称", "又稱", "又名", "亦称", "亦稱", "下称", "俗称",
    "或称", "原名", "全称", "缩写", "英文名", "英文", "英语", "英語",
)  # fmt: skip


def pattern(words: Iterable[str]) -> str:
    """A regex alternation of ``words``: longest first, any whitespace between words, dots optional.

    Dots are optional so that "a.k.a.", "a.k.a" and "aka" are one word; the longest-first order
    keeps "short for" from being read as "short".
    """
    alternatives = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(
        r"\s+".join(re.escape(part).replace(r"\.", r"\.?") for part in word.split())
        for word in alternatives
    )
