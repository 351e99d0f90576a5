"""Aliases a text states for a name the caller supplied (pure, no I/O).

A caller who passes ``entities: [{text: "Ocean Probe 1"}]`` with the content "Ocean Probe 1
(OP-1) shipped" has told us the fact names Ocean Probe 1; the text adds that it is also called
OP-1. ``app/resolve/aliases.py`` finds aliases between two *mentions*; here only one side is a
mention, so the other is read from the text right after it:

- ``X (Y)`` / ``X（Y）`` with an introducer inside the brackets (``app.domain.aliases``: "also
  known as", "aka", "short for", "formerly", "简称", "又称"…): Y is an alias;
- ``X (born Y)`` / ``X (née Y)``: a former name, read only when written as one ("born in
  1981" is none), a lone surname completed with X's given names (``alias_after``);
- ``X (Y to her friends)``: who calls X so introduces Y as well;
- ``X (Y)`` without an introducer: Y is an alias only when it abbreviates X (its letters and
  digits appear in X in order, starting with X's first one: "OP-1", "WHO", "IBM") or is a
  clipped form of one of X's words, as most nicknames are (one capitalised word of at least
  three letters, all of them in that word in order: "Wilhelmina Strand (Mina)", "Elizabeth
  Shaw (Liz)"), because a bracket after a name often holds something else ("Meridian Health
  (Boston)", "John (my cousin)", "Ann Lee (IT)");
- ``X, also known as Y`` / ``X aka Y`` / ``X，简称Y``: Y runs to the next punctuation;
- a name that holds its nickname in quotes between its words (``Robert "Bobby" Tanaka``,
  ``James ‘Jimmy’ Ortiz``), as English writes one: the name without it ("Robert Tanaka") and the
  nickname with the words after it ("Bobby Tanaka") are the person's too. The bare nickname is
  a first name of the second, matched as any short form is, not stated.

An alias holds at most five words, and some letter or digit.
"""

from __future__ import annotations

import re

from app.domain.aliases import (
    AUDIENCE,
    BRACKET_WORDS,
    CJK_WORDS,
    INLINE_WORDS,
    alias_after,
    pattern,
)
from app.domain.names import letters_in_order

_INTRO = pattern((*BRACKET_WORDS, *CJK_WORDS))
_BRACKET = re.compile(
    r"\s*[(（]\s*(?P<intro>(?:" + _INTRO + r")\s*[:：,，]?\s*)?(?P<alias>[^()（）]{1,80}?)"
    r"(?P<audience>\s+" + AUDIENCE + r"[^()（）]*)?\s*[)）]",
    re.IGNORECASE,
)
_INLINE = re.compile(
    rf"\s*[,，]?\s*(?:{pattern((*INLINE_WORDS, *CJK_WORDS))})\s*[:：]?\s*"
    r"(?P<alias>[^,，.。;；:：!！?？()（）\n]{1,80})",
    re.IGNORECASE,
)
# A nickname in quotes inside a name: one or two capitalised words (quotes of one kind or the
# other, curly or straight), with words of the name on both sides.
_QUOTED_NICKNAME = re.compile(
    r"(?P<before>\S.*?)\s+[\"“'‘](?P<nick>[^\W\d_][\w.-]*(?:\s[^\W\d_][\w.-]*)?)"
    r"[\"”'’]\s+(?P<after>\S.*)"
)
MAX_ALIAS_WORDS = 5
# A clipped form this short ("Al", "Ed") is as often a code or a department as a nickname.
MIN_CLIPPED_LETTERS = 3


def aliases_stated_for(text: str, name: str) -> tuple[str, ...]:
    """Aliases ``text`` states right after any occurrence of ``name`` (case-insensitive)."""
    name = name.strip()
    if not name or not text:
        return ()
    found: dict[str, None] = dict.fromkeys(_nickname_forms(name))
    for match in re.finditer(re.escape(name), text, re.IGNORECASE):
        after = match.end()
        bracket = _BRACKET.match(text, after)
        if bracket is not None:
            alias = alias_after(bracket["intro"], _clean(bracket["alias"]), name)
            stated = bracket["intro"] or bracket["audience"]
            if alias and (stated or _abbreviates(alias, name) or _clips(alias, name)):
                found.setdefault(alias)
            continue
        inline = _INLINE.match(text, after)
        if inline is not None:
            alias = _clean(inline["alias"])
            if alias:
                found.setdefault(alias)
    return tuple(a for a in found if a.casefold() != name.casefold())


def _nickname_forms(name: str) -> tuple[str, ...]:
    """The name without its quoted nickname, and the nickname with the words after it."""
    match = _QUOTED_NICKNAME.fullmatch(" ".join(name.split()))
    if match is None or not match["nick"][0].isupper():
        return ()
    return (f"{match['before']} {match['after']}", f"{match['nick']} {match['after']}")


def _clean(alias: str) -> str:
    alias = alias.strip().strip("\"'“”‘’「」『』").strip()
    if len(alias.split()) > MAX_ALIAS_WORDS or not any(ch.isalnum() for ch in alias):
        return ""
    return alias


def _clips(alias: str, name: str) -> bool:
    """True when the alias is a capitalised word made of a name word's letters, in order."""
    if not (alias.isalpha() and len(alias) >= MIN_CLIPPED_LETTERS and alias.istitle()):
        return False
    short = alias.casefold()
    return any(
        len(word) > len(short) and letters_in_order(short, word)
        for word in re.split(r"[\s-]+", name.casefold())
    )


def _abbreviates(alias: str, name: str) -> bool:
    """True when the alias's letters and digits appear in the name in order, from its first."""
    short = "".join(ch for ch in alias.casefold() if ch.isalnum())
    full = "".join(ch for ch in name.casefold() if ch.isalnum())
    if not short or not full or short[0] != full[0] or len(short) >= len(full):
        return False
    return letters_in_order(short, full)
