from app.resolve.supplied_aliases import aliases_stated_for


def test_a_bracketed_abbreviation_is_an_alias():
    assert aliases_stated_for("Ocean Probe 1 (OP-1) reached 3,000 m.", "Ocean Probe 1") == ("OP-1",)
    assert aliases_stated_for(
        "the World Health Organization (WHO) said", "World Health Organization"
    ) == ("WHO",)


def test_a_bracket_that_does_not_abbreviate_needs_an_introducer():
    assert aliases_stated_for("Meridian Health (Boston) signed.", "Meridian Health") == ()
    assert aliases_stated_for("John (my cousin) came.", "John") == ()
    assert aliases_stated_for("Robert Smith (also known as Bob) came.", "Robert Smith") == ("Bob",)
    assert aliases_stated_for("海洋探测器1号（简称海探1）已出发。", "海洋探测器1号") == ("海探1",)


def test_a_bracketed_clipping_of_a_word_of_the_name_is_an_alias():
    assert aliases_stated_for("Wilhelmina Strand (Mina) came.", "Wilhelmina Strand") == ("Mina",)
    assert aliases_stated_for("Elizabeth Shaw (Liz) came.", "Elizabeth Shaw") == ("Liz",)
    # A department, an abbreviation of a status, a word not made of the name's letters: no.
    assert aliases_stated_for("Ann Lee (IT) came.", "Ann Lee") == ()
    assert aliases_stated_for("Tom Smith (Ret.) came.", "Tom Smith") == ()
    assert aliases_stated_for("Anna Weber (Berlin) came.", "Anna Weber") == ()


def test_inline_aliases_run_to_the_next_punctuation():
    text = "Robert Smith, also known as Bob, met Jonathan aka Jon."
    assert aliases_stated_for(text, "Robert Smith") == ("Bob",)
    assert aliases_stated_for(text, "Jonathan") == ("Jon",)
    assert aliases_stated_for("海洋探测器1号，简称海探1。", "海洋探测器1号") == ("海探1",)


def test_the_name_is_found_whatever_its_case_and_every_occurrence_counts():
    text = "OCEAN PROBE 1 (OP-1) left; later Ocean Probe 1 (OP1) came back."
    assert aliases_stated_for(text, "Ocean Probe 1") == ("OP-1", "OP1")


def test_nothing_stated_gives_nothing():
    assert aliases_stated_for("Sarah Chen and Alex Kim met (briefly).", "Sarah Chen") == ()
    assert aliases_stated_for("", "X") == ()
    assert aliases_stated_for("X (X) again", "X") == ()
    assert aliases_stated_for("Acme (a b c d e f g) x", "Acme") == ()
    assert aliases_stated_for("Acme aka ...", "Acme") == ()


def test_a_nickname_quoted_inside_a_name_gives_the_formal_name_and_the_nickname_form():
    name = "Robert “Bobby” Tanaka"
    assert aliases_stated_for(f"{name} coaches the under-nines.", name) == (
        "Robert Tanaka",
        "Bobby Tanaka",
    )
    name = "Mary-Jo 'MJ' van der Berg"
    assert aliases_stated_for(f"{name} came.", name) == ("Mary-Jo van der Berg", "MJ van der Berg")
    # Quoted words that are not a name, or a quote at the name's edge, state nothing.
    assert aliases_stated_for('Anna "the boss" Lee came.', 'Anna "the boss" Lee') == ()
    assert aliases_stated_for('"Bobby" Tanaka came.', '"Bobby" Tanaka') == ()


def test_a_nickname_for_friends_in_brackets_is_stated() -> None:
    text = "Anastasia (Nastya to her friends) showed me the meter."
    assert aliases_stated_for(text, "Anastasia") == ("Nastya",)
    # Who calls her so may be everyone, and said with more.
    text = "Anastasia (Nastya to everyone since school) showed me the meter."
    assert aliases_stated_for(text, "Anastasia") == ("Nastya",)
    # Without who calls her so, a bracket that is no short form of the name states nothing.
    assert aliases_stated_for("Anastasia (Nastya) showed me the meter.", "Anastasia") == ()
