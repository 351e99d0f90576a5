import pytest

from app.domain.tags import TAGS_MATCH_MODES, TagsMatch, tags_match

UNTAGGED: list[str] = []
# fact tags, query tags → expected per mode (any, all, any_strict, all_strict, exact)
CASES = [
    (UNTAGGED, ["a"], (True, True, False, False, False)),
    (["a"], ["a"], (True, True, True, True, True)),
    (["a", "b"], ["a"], (True, True, True, True, False)),
    (["a"], ["a", "b"], (True, False, True, False, False)),
    (["a", "b"], ["b", "a"], (True, True, True, True, True)),
    (["c"], ["a", "b"], (False, False, False, False, False)),
    (["a", "b", "c"], ["a", "b"], (True, True, True, True, False)),
]


@pytest.mark.parametrize(("fact", "query", "expected"), CASES)
def test_each_mode_follows_the_documented_table(
    fact: list[str], query: list[str], expected: tuple[bool, ...]
) -> None:
    got = tuple(tags_match(fact, query, mode) for mode in TAGS_MATCH_MODES)
    assert got == expected


def test_modes_are_the_five_documented_ones():
    assert TAGS_MATCH_MODES == ("any", "all", "any_strict", "all_strict", "exact")


def test_untagged_facts_pass_lenient_modes_and_fail_strict_ones():
    assert tags_match(None, ["x"], "any")
    assert tags_match([], ["x"], "all")
    assert not tags_match(None, ["x"], "any_strict")
    assert not tags_match(None, ["x"], "all_strict")
    assert not tags_match(None, ["x"], "exact")


@pytest.mark.parametrize("mode", TAGS_MATCH_MODES)
def test_no_query_tags_means_no_filter(mode: TagsMatch) -> None:
    assert tags_match(["a"], [], mode)
    assert tags_match(None, None, mode)


def test_duplicates_do_not_matter_and_case_does():
    assert tags_match(["a", "a"], ["a"], "exact")
    assert not tags_match(["A"], ["a"], "any_strict")


def test_default_mode_is_any():
    assert tags_match(None, ["a"])
    assert tags_match(["a", "z"], ["a", "b"])


def test_unknown_mode_is_rejected_even_for_untagged_facts():
    with pytest.raises(ValueError, match="unknown tags_match"):
        tags_match(None, ["a"], "some")  # type: ignore[arg-type]
