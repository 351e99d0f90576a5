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
# Said inside brackets before the name someone had before: "Katrin Aas (born Katrin Müller)",
# "Ines Koch (née Ines Brandt)". The same words open descriptions ("born in 1981", "born
# abroad"), so what follows one is an alias only when it is written as a name.
NAME_CHANGE_WORDS: tuple[str, ...] = ("born", "née", "nee", "maiden name", "birth name")
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
    *NAME_CHANGE_WORDS,
)
# Said after the alias, naming who uses it: "Eleni (Lena to her friends)", "Terezija Dolenc,
# Rezka to the whole market,". Not "to the north": a bare "the" is as often a direction.
AUDIENCE = r"to\s+(?:everyone|everybody|(?:her|his|their|my|our|your|the\s+whole)\s+[a-z]+)"
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


def alias_after(intro: str | None, alias: str, name: str) -> str:
    """The alias that ``intro`` and the words after it state for ``name``; "" for none.

    Only a name-change word is read here: what follows it must be written as a name ("born in
    1981" is not one), and a lone surname after it completes the name it replaced ("Ines Koch
    (née Brandt)" was Ines Brandt). Any other introducer's alias is returned as it is.
    """
    alias = alias.strip()
    if (
        intro is None
        or " ".join(intro.strip(" :：,，").split()).casefold() not in NAME_CHANGE_WORDS
    ):
        return alias
    if not alias or not alias[0].isupper() or any(char.isdigit() for char in alias):
        return ""
    words = name.split()
    return " ".join([*words[:-1], alias]) if len(alias.split()) == 1 and len(words) > 1 else alias
