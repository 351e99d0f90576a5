from app.recall.query_text import hub_mentions, without_names


def test_hub_mentions_find_the_words_that_name_a_hub():
    hubs = frozenset({"gina", "jon"})
    assert hub_mentions("What is Gina's favorite style of dance?", hubs) == ["Gina's"]
    assert set(hub_mentions("Did Jon and Gina both dance?", hubs)) == {"Jon", "Gina"}
    assert hub_mentions("What is Gina's favorite dance?", frozenset()) == []


def test_without_names_removes_names_and_possessives():
    assert without_names("What is Gina's favorite style of dance?", ["Gina's"]) == (
        "What is favorite style of dance?"
    )
    assert without_names("Did Jon and GINA both dance at the festival?", ["Jon", "Gina"]) == (
        "Did and both dance at the festival?"
    )


def test_without_names_keeps_the_query_when_too_little_would_remain():
    assert without_names("Who is Gina?", ["Gina"]) == "Who is Gina?"
    assert without_names("Tell me about Gina", ["Gina"]) == "Tell me about Gina"


def test_without_names_leaves_other_words_containing_the_name_alone():
    assert without_names("Did Jonathan meet Jon in Jonesboro?", ["Jon"]) == (
        "Did Jonathan meet in Jonesboro?"
    )
