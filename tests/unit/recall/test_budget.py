import pytest

from app.recall.budget import estimate_tokens, fill_budget


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("", 0),
        ("abcd", 1),  # 4 bytes → 1
        ("abcde", 2),  # 5 bytes → ceil(1.25) = 2
        ("I went to the park.", 6),  # 19 bytes → 5, but 6 words and marks
        ("2023-05-07", 5),  # 10 bytes → 3, but 2023 - 05 - 07 are 5 pieces
        ("海洋探测器", 4),  # 15 bytes → 4, one word run
        ("Caroline moved to Sweden in 2019 after her divorce", 13),  # 50 bytes → 13; 9 words
    ],
)
def test_estimate_tokens_follows_the_documented_rule(text: str, tokens: int) -> None:
    assert estimate_tokens(text) == tokens


def cost_is_length(text: str) -> int:
    return len(text)


def test_budget_keeps_results_while_they_fit_exactly():
    filled = fill_budget(["aaa", "bbbbb", "c"], str, 9, count_tokens=cost_is_length)
    assert filled.kept == ("aaa", "bbbbb", "c")
    assert filled.used_tokens == 9
    assert filled.dropped == 0


def test_budget_stops_at_the_first_result_that_does_not_fit():
    # "aaa" (3) fits in 7, "bbbbb" (5) does not; "c" (1) would, but the walk has stopped.
    filled = fill_budget(["aaa", "bbbbb", "c"], str, 7, count_tokens=cost_is_length)
    assert filled.kept == ("aaa",)
    assert filled.used_tokens == 3
    assert filled.dropped == 2


def test_answer_is_always_a_prefix_of_the_ranking():
    ranking = ["x" * n for n in (4, 9, 1, 2, 6, 1)]
    for max_tokens in range(25):
        kept = fill_budget(ranking, str, max_tokens, count_tokens=cost_is_length).kept
        assert list(kept) == ranking[: len(kept)]
        assert sum(map(len, kept)) <= max_tokens


def test_first_result_larger_than_the_budget_gives_an_empty_answer():
    filled = fill_budget(["a long fact"], str, 2)  # 11 bytes → 3 tokens
    assert filled.kept == ()
    assert filled.used_tokens == 0
    assert filled.dropped == 1


def test_zero_budget_keeps_nothing_and_negative_budget_is_rejected():
    assert fill_budget(["a"], str, 0).kept == ()
    with pytest.raises(ValueError, match="max_tokens"):
        fill_budget(["a"], str, -1)


def test_budget_counts_the_text_the_caller_selects():
    results = [("id1", "abcd"), ("id2", "abcdefgh")]
    filled = fill_budget(results, lambda item: item[1], 2)  # 1 token, then 2 more
    assert filled.kept == (("id1", "abcd"),)
    assert filled.used_tokens == 1
