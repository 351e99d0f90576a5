import re

from app.domain.aliases import BRACKET_WORDS, CJK_WORDS, INLINE_WORDS, pattern
from app.resolve.aliases import stated_alias_pairs
from app.resolve.supplied_aliases import aliases_stated_for


def test_pattern_reads_dotted_and_undotted_spellings_as_one_word() -> None:
    words = re.compile(f"(?:{pattern(INLINE_WORDS)})", re.IGNORECASE)
    for spelling in ("aka", "a.k.a.", "a.k.a", "AKA", "also  known\tas"):
        assert words.fullmatch(spelling), spelling
    assert not words.fullmatch("akas")


def test_pattern_prefers_the_longest_word() -> None:
    words = re.compile(f"(?:{pattern(BRACKET_WORDS)})", re.IGNORECASE)
    assert words.match("short for OP").group(0) == "short for"


def test_every_inline_word_is_understood_inside_brackets_too() -> None:
    assert set(INLINE_WORDS) <= set(BRACKET_WORDS)


def test_resolver_and_retain_read_the_same_introducers() -> None:
    for word in ("nicknamed", "formerly known as", "a.k.a."):
        text = f"Robert Smith ({word} Bob) called."
        assert stated_alias_pairs(text, ["Robert Smith", "Bob"]) == ((0, 1),), word
        assert aliases_stated_for(text, "Robert Smith") == ("Bob",), word
    for word in CJK_WORDS[:3]:
        text = f"海洋探测器1号（{word}海探1）发射了"
        assert aliases_stated_for(text, "海洋探测器1号") == ("海探1",), word


def test_a_former_name_reads_alike_to_resolver_and_retain_a_lone_surname_completed() -> None:
    for word in ("born", "née", "maiden name:"):
        text = f"Ines Koch ({word} Ines Brandt) renewed her passport."
        assert stated_alias_pairs(text, ["Ines Koch", "Ines Brandt"]) == ((0, 1),), word
        assert aliases_stated_for(text, "Ines Koch") == ("Ines Brandt",), word
    assert aliases_stated_for("Ines Koch (née Brandt) moved.", "Ines Koch") == ("Ines Brandt",)


def test_a_birth_date_or_place_after_born_is_no_former_name() -> None:
    for aside in ("born in Lübeck", "born 1981", "born March 3"):
        assert aliases_stated_for(f"Ines Koch ({aside}) moved.", "Ines Koch") == (), aside
