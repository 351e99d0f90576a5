from datetime import UTC, datetime

import pytest

from app.recall.channels.keyword import MAX_TERMS, lucene_query, query_terms, tags_clause
from app.recall.query import RecallQuery
from app.store.search_keys import bank_key, count_token, tag_token

NOW = datetime(2024, 5, 1, tzinfo=UTC)


def query(text: str, **kw: object) -> RecallQuery:
    return RecallQuery(bank_id="b-1", text=text, now=NOW, **kw)  # type: ignore[arg-type]


def test_terms_are_distinct_lowercased_content_words_in_order():
    assert query_terms("Where did Sarah go? sarah went to Lisbon") == [
        "sarah",
        "go",
        "went",
        "lisbon",
    ]


def test_a_query_of_only_function_words_searches_them():
    assert query_terms("What is it?") == ["what", "is", "it"]


def test_lucene_syntax_in_the_query_leaves_only_words():
    assert query_terms('foo AND (bar:* OR "x" ~ \\) NOT -baz^2 && ||') == [
        "foo",
        "bar",
        "x",
        "baz",
        "2",
    ]


def test_terms_are_capped_so_lucene_never_sees_too_many_clauses():
    assert len(query_terms(" ".join(f"w{i}" for i in range(500)))) == MAX_TERMS


def test_query_of_no_words_has_no_lucene_query():
    assert lucene_query(query("?! ... ***")) is None


def test_lucene_query_scopes_bank_and_state_with_zero_boosts():
    lucene = lucene_query(query("Lake Tahoe"))
    assert lucene == (
        f"bank_key:{bank_key('b-1')}^0 AND state:valid^0 AND "
        "(text:(lake tahoe) OR entity_names:(lake tahoe))"
    )


def test_lucene_query_adds_types_and_tags():
    lucene = lucene_query(query("x", fact_types=("world",), tags=("a",), tags_match="any"))
    assert lucene is not None
    assert "fact_type:(world)^0" in lucene
    assert f"(tag_tokens:({tag_token('a')}) OR tag_tokens:untagged0)^0" in lucene


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("any", "(tag_tokens:({a} OR {b}) OR tag_tokens:untagged0)"),
        ("any_strict", "tag_tokens:({a} OR {b})"),
        ("all", "((tag_tokens:{a} AND tag_tokens:{b}) OR tag_tokens:untagged0)"),
        ("all_strict", "(tag_tokens:{a} AND tag_tokens:{b})"),
        ("exact", "(tag_tokens:{a} AND tag_tokens:{b} AND tag_tokens:{n})"),
    ],
)
def test_tags_clause_per_mode(mode, expected):
    clause = tags_clause(("b", "a", "a"), mode)
    assert clause == expected.format(a=tag_token("a"), b=tag_token("b"), n=count_token(2))


def test_no_tags_means_no_tag_clause():
    assert tags_clause(None, "exact") is None
    assert tags_clause((), "all_strict") is None
