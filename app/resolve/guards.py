"""Guards: pure checks that say why two names must NOT be merged (``None`` when compatible).

Guards run before any scoring and are absolute: no amount of shared context or recency can
merge a pair a guard rejects. Each returns a short reason string for the evidence record.

- **Types** (``type_conflict``): identical type classes are compatible, unknown ("" / None) is
  compatible with anything, and only the pairs in ``COMPATIBLE_TYPES`` cross classes. Apple the
  customer (organization) never merges with apple the fruit (other / product).
- **Numbers and codes** (``number_conflict``): the number tokens of both names must be the same
  multiset, and a number on one side only is a conflict as well: Room 101 ≠ Room 102,
  UA123 ≠ UA124, Sprint 14 ≠ Sprint 15, Claude ≠ Claude 4, GPT-4 ≠ GPT-4o ("4" vs "4o").
- **Tokens** (``token_conflict``): every word of the shorter name needs its own counterpart in the
  longer one: equal (accent-insensitive), an initial ("J." ↔ "John"), or, outside person names,
  a one-letter typo in a word of five letters or more, a run of words written as initials
  ("BH" ↔ "Blue Harbor") or a contraction of one word ("MS" ↔ "Microsoft"). John Smith ≠
  Jane Smith, while "Sarah" ~ "Sarah Chen" and "J. Smith" ~ "John Smith". Words are compared
  whole, so a short name inside a longer unrelated one is no match (Iran ≠ Tigran). A single
  word that is the acronym of the other name is compatible ("UW" ~ "University of
  Washington").
- A pair of names that the text itself states to be aliases skips the token guard (nothing in
  "Robert, also known as Bob" aligns), but never the type guard, nor the number guard when
  both names have numbers ("Ocean Probe 1" may be "OP-1", never "OP-2"); a stated name
  without any number is a nickname ("Unit 7, which the crew calls the Beast").
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable

import msgspec
from rapidfuzz.distance import Levenshtein

from app.domain.names import NAME_FUNCTION_WORDS, NameForm, address_title, letters_in_order

# Type classes that may name the same thing although they differ: a named software project is
# often typed "product" by one extractor and "project" by another.
COMPATIBLE_TYPES: frozenset[frozenset[str]] = frozenset({frozenset({"product", "project"})})

# A typo counts only in words at least this long, and only outside person names (a one-letter
# difference between person names is usually another name: Marion / Marian, Carla / Karla).
TYPO_MIN_LENGTH = 5


def type_conflict(a: str, b: str) -> str | None:
    """Reason why two type classes (from ``type_class``) cannot name the same entity, or None."""
    if not a or not b or a == b or frozenset({a, b}) in COMPATIBLE_TYPES:
        return None
    return f"types differ: {a} vs {b}"


def number_conflict(a: NameForm, b: NameForm) -> str | None:
    """Reason why the numbers or codes of two names differ, or None when they agree."""
    if a.numbers == b.numbers:
        return None
    if not a.numbers or not b.numbers:
        return "number or version on one side only"
    return f"numbers differ: {' '.join(a.numbers)} vs {' '.join(b.numbers)}"


class WordAlignment(msgspec.Struct, frozen=True):
    """How the words of the shorter name matched words of the longer one."""

    exact: int
    initials: int
    typos: int
    # Words of the longer name left unmatched, initials excluded.
    unmatched_long: int
    # Initials of the longer name left unmatched ("j" of "sarah j chen" against "sarah chen").
    extra_initials: int
    # Words of the longer name, initials excluded.
    long_words: int

    @property
    def matched(self) -> int:
        """Words matched, whatever the kind."""
        return self.exact + self.initials + self.typos


def align_words(a: NameForm, b: NameForm, *, typos: bool = True) -> WordAlignment | None:
    """Match every word of the shorter name to a distinct word of the longer one, or None.

    Equal words are matched first, then initials, then (if ``typos``) one-letter typos. With
    equal word counts this covers both names. A name without words (only numbers) aligns with
    anything.
    """
    person = "person" in (a.type_class, b.type_class)
    initial = is_initial if person else _initial_in_a_name_of_things
    found = _align(a.words, b.words, typos, initial)
    if found is None and (a.spelled != a.words or b.spelled != b.words):
        # "Jürgen Weiß" and "Juergen Weiss": the same letters, spelled for a keyboard, word by
        # word ("Håvard Rønneberg" is also "Haavard Ronneberg").
        found = _align(_respelled(a, b), b.words, typos, initial) or _align(
            a.words, _respelled(b, a), typos, initial
        )
    if found is None:
        # "Seo-yeon Han", "Seoyeon Han", "Seo Yeon": one name whether split or joined.
        joined_a, joined_b = _joined(a.words, b.words), _joined(b.words, a.words)
        if joined_a != a.words or joined_b != b.words:
            found = _align(joined_a, joined_b, typos, initial)
    if found is None and not person:
        # "VS Code" and "Visual Studio Code": a word of one is the initials of a run of the
        # other's words, and the rest align. Not for people ("JR" is not read as two names).
        found = _rewritten_alignment(_initialled, a.words, b.words, typos, initial)
        if found is None:
            # "MS Word" and "Microsoft Word": a word of one is a contraction of a word of the
            # other, and the rest align.
            found = _rewritten_alignment(_contracted, a.words, b.words, typos, initial)
    return found


def _initial_in_a_name_of_things(word: str) -> bool:
    """An initial, unless a one-letter word of its own ("and" in "Farmácia e Terapêutica").

    In a person's name the letter stays an initial ("Robert E. Lee"); in the name of a thing
    it is read as what it says ("the" in "Pont y Felin"), and "Farmácia Estrela" does not align
    with "Comissão de Farmácia e Terapêutica" by taking its "e" for "Estrela".
    """
    return is_initial(word) and word not in NAME_FUNCTION_WORDS


def _respelled(form: NameForm, other: NameForm) -> tuple[str, ...]:
    """``form``'s words, each spelled for a keyboard where ``other`` writes it so."""
    theirs = set(other.words)
    return tuple(
        spelled if spelled in theirs else word
        for word, spelled in zip(form.words, form.spelled, strict=True)
    )


def _rewritten_alignment(
    rewrite: Callable[[tuple[str, ...], tuple[str, ...]], tuple[tuple[str, ...], int]],
    a: tuple[str, ...],
    b: tuple[str, ...],
    typos: bool,
    initial: Callable[[str], bool],
) -> WordAlignment | None:
    """The alignment of two names once ``rewrite`` wrote each in the other's form, or None.

    ``rewrite(words, other)`` gives ``words`` written as ``other`` writes them (a run of words
    as the initials ``other`` has, a contraction as the word ``other`` has) and how many it
    rewrote; each rewrite counts as an initial, not an exact word. None when nothing was
    rewritten or the result does not align, and when a word is left out with no word written
    alike on both sides: a rewrite and a dropped word are two relaxations on one pair, and
    "Ji-min" read as "Maximilian" contracted to "min" is no name relation ("MS Word" /
    "Microsoft Word" keep "word").
    """
    (words_a, count_a), (words_b, count_b) = rewrite(a, b), rewrite(b, a)
    count = count_a + count_b
    if not count:
        return None
    found = _align(words_a, words_b, typos, initial)
    if found is None:
        return None
    exact = found.exact - count
    if found.unmatched_long and exact <= 0:
        return None
    return msgspec.structs.replace(found, exact=exact, initials=found.initials + count)


# The longest run of words read as one word's initials ("VS" of "Visual Studio").
MAX_INITIALS_RUN = 4


def run_initials(words: tuple[str, ...]) -> set[str]:
    """The initials of every run of 2 to ``MAX_INITIALS_RUN`` consecutive words."""
    return {
        "".join(w[0] for w in words[i : i + n])
        for n in range(2, MAX_INITIALS_RUN + 1)
        for i in range(len(words) - n + 1)
    }


def _initialled(words: tuple[str, ...], other: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """``words`` with runs of words written as their initials where ``other`` has them.

    Only initials that are a word of ``other`` and not of ``words`` count. Returns the words
    and how many runs were written so.
    """
    targets = {w for w in other if len(w) >= 2 and w.isalpha() and w not in words}
    out: list[str] = []
    runs = 0
    i = 0
    while i < len(words):
        for n in range(min(MAX_INITIALS_RUN, len(words) - i), 1, -1):
            initials = "".join(w[0] for w in words[i : i + n])
            if initials in targets:
                out.append(initials)
                runs += 1
                i += n
                break
        else:
            out.append(words[i])
            i += 1
    return tuple(out), runs


# A contraction keeps 2 to 4 of a word's letters, and leaves out at least 3 ("MS" of
# "Microsoft", "Dept" of "Department", "Intl" of "International").
CONTRACTION_LETTERS = (2, 4)
CONTRACTION_DROPS = 3


@functools.lru_cache(maxsize=65536)
def _contracted(words: tuple[str, ...], other: tuple[str, ...]) -> tuple[tuple[str, ...], int]:
    """``words`` with each contraction of a word of ``other`` written as that word.

    A contraction starts with the word's first letter, keeps the rest of its letters in order,
    and is neither the word's beginning nor a small word of names: "air" of "airline" and
    "the" are words of their own, "ms" of "microsoft" is not. Only words of ``other`` that
    ``words`` lacks count. Returns the words and how many were contractions.
    """
    low, high = CONTRACTION_LETTERS
    if not any(low <= len(word) <= high for word in words):
        return words, 0
    targets = [w for w in other if w.isalpha() and w not in words]
    out: list[str] = []
    cut = 0
    for word in words:
        full = None
        if low <= len(word) <= high and word.isalpha() and word not in NAME_FUNCTION_WORDS:
            full = next(
                (
                    t
                    for t in targets
                    if len(t) >= len(word) + CONTRACTION_DROPS
                    and t[0] == word[0]
                    and not t.startswith(word)
                    and letters_in_order(word, t)
                ),
                None,
            )
        if full is None:
            out.append(word)
        else:
            out.append(full)
            targets.remove(full)
            cut += 1
    return tuple(out), cut


def _joined(words: tuple[str, ...], other: tuple[str, ...]) -> tuple[str, ...]:
    """``words`` with adjacent words joined where ``other`` has them as one word."""
    targets = set(other)
    out: list[str] = []
    i = 0
    while i < len(words):
        if i + 1 < len(words) and words[i] + words[i + 1] in targets:
            out.append(words[i] + words[i + 1])
            i += 2
        else:
            out.append(words[i])
            i += 1
    return tuple(out)


# Pure and called for every (mention, candidate) name pair, mostly the same few pairs again:
# a bounded memo turns the retain hot path's biggest Python cost into a dict lookup.
@functools.lru_cache(maxsize=65536)
def _align(
    a: tuple[str, ...], b: tuple[str, ...], typos: bool, initial: Callable[[str], bool]
) -> WordAlignment | None:
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    remaining = Counter(long_)
    unmatched: list[str] = []
    exact = 0
    for word in short:
        if remaining[word] > 0:
            remaining[word] -= 1
            exact += 1
        else:
            unmatched.append(word)
    pool = list(remaining.elements())
    initials = 0
    typo_count = 0
    for word in unmatched:
        partner = _find(word, pool, lambda x, y: _initial_match(x, y, initial))
        if partner is not None:
            initials += 1
        elif typos:
            partner = _find(word, pool, _typo_match)
            if partner is None:
                return None
            typo_count += 1
        else:
            return None
        pool.remove(partner)
    return WordAlignment(
        exact=exact,
        initials=initials,
        typos=typo_count,
        unmatched_long=sum(1 for w in pool if not initial(w)),
        extra_initials=sum(1 for w in pool if initial(w)),
        long_words=sum(1 for w in long_ if not initial(w)),
    )


def _find(word: str, pool: list[str], match: Callable[[str, str], bool]) -> str | None:
    for candidate in pool:
        if match(word, candidate):
            return candidate
    return None


def is_initial(word: str) -> bool:
    """True for a single Latin letter (the "J" of "Sarah J. Chen")."""
    return len(word) == 1 and word.isascii() and word.isalpha()


def _initial_match(a: str, b: str, initial: Callable[[str], bool]) -> bool:
    if initial(a) and not initial(b):
        return b.startswith(a)
    if initial(b) and not initial(a):
        return a.startswith(b)
    return False


def _typo_match(a: str, b: str) -> bool:
    if min(len(a), len(b)) < TYPO_MIN_LENGTH or not (a.isalpha() and b.isalpha()):
        return False
    return a[0] == b[0] and Levenshtein.distance(a, b) <= 1


def is_acronym_of(short: NameForm, long_: NameForm) -> bool:
    """True when ``short`` is a single word equal to an acronym of ``long_`` ("uw")."""
    return len(short.words) == 1 and short.words[0] in long_.acronyms


def title_conflict(a: NameForm, b: NameForm) -> str | None:
    """Why two names written with titles cannot be one person's ("Dr Varley" / "Mrs Varley")."""
    ta, tb = address_title(a), address_title(b)
    if ta is None or tb is None or ta == tb:
        return None
    return f"titles differ: {a.tokens[0]!r} vs {b.tokens[0]!r}"


def token_conflict(a: NameForm, b: NameForm) -> str | None:
    """Reason why the words of two names cannot be aligned, or None when they can."""
    if is_acronym_of(a, b) or is_acronym_of(b, a):
        return None
    person = "person" in (a.type_class, b.type_class)
    if align_words(a, b, typos=not person) is not None:
        return None
    return f"words do not align: {' '.join(a.words)!r} vs {' '.join(b.words)!r}"


def name_conflict(a: NameForm, b: NameForm, *, stated: bool = False) -> str | None:
    """Number guard, then (unless the text states the alias) token guard.

    A stated alias with no number at all is a nickname of the numbered name ("BP-112, the one
    the crew calls Crochet"): only numbers on both sides that differ refuse it.
    """
    reason = number_conflict(a, b)
    if stated:
        return reason if a.numbers and b.numbers else None
    return reason or token_conflict(a, b)


def pair_conflict(a: NameForm, b: NameForm, *, stated: bool = False) -> str | None:
    """All guards for two names, each carrying its own type class (``NameForm.type_class``)."""
    return type_conflict(a.type_class, b.type_class) or name_conflict(a, b, stated=stated)
