from app.resolve.aliases import stated_alias_pairs


def test_chinese_short_form_in_full_width_brackets():
    text = "海蓝科技 sent the spec sheet for 海洋探测器1号（简称海探1）; it is rated to 3,000 m."
    assert stated_alias_pairs(text, ["海蓝科技", "海洋探测器1号", "海探1"]) == ((1, 2),)


def test_parenthesised_short_form():
    assert stated_alias_pairs("Ocean Probe 1 (OP-1) shipped.", ["Ocean Probe 1", "OP-1"]) == (
        (0, 1),
    )


def test_also_known_as_and_aka():
    text = "Robert Smith, also known as Bob, met Jonathan aka Jon."
    pairs = stated_alias_pairs(text, ["Robert Smith", "Bob", "Jonathan", "Jon"])
    assert pairs == ((0, 1), (2, 3))


def test_inline_chinese_short_form():
    assert stated_alias_pairs("海洋探测器1号，简称海探1。", ["海洋探测器1号", "海探1"]) == ((0, 1),)


def test_names_that_merely_appear_together_are_no_alias():
    text = "Sarah Chen and Alex Kim met (briefly) at Orbit."
    assert stated_alias_pairs(text, ["Sarah Chen", "Alex Kim", "Orbit"]) == ()


def test_bracketed_place_is_reported_and_left_to_the_type_guard():
    pairs = stated_alias_pairs("Meridian Health (Boston) signed.", ["Meridian Health", "Boston"])
    assert pairs == ((0, 1),)


def test_a_plain_bracket_that_gives_a_number_a_name_states_no_alias():
    surfaces = ["Room 101", "Finance"]
    assert stated_alias_pairs("Room 101 (Finance) is booked.", surfaces) == ()
    assert stated_alias_pairs("Room 101 (aka Finance) is booked.", surfaces) == ((0, 1),)
    assert stated_alias_pairs("Room 101 (R101) is booked.", ["Room 101", "R101"]) == ((0, 1),)
    nickname = "BP-112, the one the crew calls Crochet, surfaced."
    assert stated_alias_pairs(nickname, ["BP-112", "Crochet"]) == ((0, 1),)


def test_a_naming_clause_states_a_nickname_of_the_name_before_it():
    for text in (
        "Imre Halasz, the crane driver whom the whole yard calls Bear, lifted it.",
        "Imre Halasz, our new driver, says everyone calls him Bear.",
        "The cook, Imre Halasz, is called Bear by the crew.",
        "Imre Halasz, who goes by Bear, lifted it.",
        "Imre Halasz, who has gone by Bear since school, lifted it.",
        "Imre Halasz, known around the docks as Bear, lifted it.",
        "Imre Halasz, who signs every delivery note as Bear, lifted it.",
        "Imre Halasz, the one the whole yard calls Bear, lifted it.",
        "Imre Halasz, who everyone calls Bear, lifted it.",
        "Imre Halasz, who the older drivers call Bear, lifted it.",
        "Imre Halasz, the crane driver everyone calls Bear, lifted it.",
        "Imre Halasz, the driver his crew call Bear, lifted it.",
    ):
        assert stated_alias_pairs(text, ["Imre Halasz", "Bear"]) == ((0, 1),), text
    # How the person writes the name, in another script or spelling.
    for text, surfaces in (
        ("Yuko Tanaka (who writes her name 田中裕子) landed.", ["Yuko Tanaka", "田中裕子"]),
        ("Jörg Klein, who spells his name Joerg in email, called.", ["Jörg Klein", "Joerg"]),
    ):
        assert stated_alias_pairs(text, surfaces) == ((0, 1),), text
    # The name first, then whom it names: "Bear, as the yard calls Imre Halasz".
    text = "Bear, as the older drivers call Imre Halasz, lifted it."
    assert stated_alias_pairs(text, ["Bear", "Imre Halasz"]) == ((0, 1),)


def test_a_nickname_quoted_or_said_with_who_uses_it_is_stated():
    for text in (
        'Imre Halasz joined, and the other drivers were calling him "Bear".',
        "Imre Halasz joined, and everyone calls him “Bear”.",
        'Everyone at the yard calls Imre Halasz "Bear".',
        "Visited Imre Halasz, Bear to everyone in the village.",
        "Imre Halasz, Bear to the whole yard, lifted it.",
        "Imre Halasz (Bear to everyone since his first week) lifted it.",
        "Imre Halasz — Bear to everyone at the yard — lifted it.",
        "Imre Halasz, Bear as the whole yard calls him, lifted it.",
    ):
        assert stated_alias_pairs(text, ["Imre Halasz", "Bear"]) == ((0, 1),), text
    # A list, a direction, a quoted word that no mention is: no naming.
    surfaces = ["Imre Halasz", "Bear", "Oona"]
    assert stated_alias_pairs("Imre Halasz met Bear, Oona to the north.", surfaces) == ()
    text = "Imre Halasz introduced Bear, Oona and Ali to everyone."
    assert stated_alias_pairs(text, [*surfaces, "Ali"]) == ()
    text = "Imre Halasz met Bear as the boss calls him in."
    assert stated_alias_pairs(text, surfaces) == ()
    text = "Imre Halasz hugged Bear, Oona to everyone's surprise."
    assert stated_alias_pairs(text, surfaces) == ()
    # The quoted name is the one right after "calls": Bear is called "Oona", not Imre.
    text = 'Imre Halasz calls Bear "Oona" at work.'
    assert stated_alias_pairs(text, surfaces) == ((1, 2),)


def test_calling_someone_or_a_naming_in_another_sentence_is_no_alias():
    assert (
        stated_alias_pairs("Imre Halasz called Bear about the crane.", ["Imre Halasz", "Bear"])
        == ()
    )
    text = "Imre Halasz left early. Everyone calls him Bear."
    assert stated_alias_pairs(text, ["Imre Halasz", "Bear"]) == ()
    for text in (
        "Imre Halasz signed the form and Bear countersigned.",
        "Imre Halasz is known for his temper; Bear is not.",
        "Imre Halasz went by bus with Bear.",
        "Imre Halasz waved just as his mother calls Bear in for dinner.",
        "Imre Halasz wrote his name on the form for Bear.",
        # Not set off by a comma, the clause is another noun's: someone Imre met.
        "Imre Halasz met the man everyone calls Bear.",
    ):
        assert stated_alias_pairs(text, ["Imre Halasz", "Bear"]) == (), text


def test_a_name_that_does_the_calling_is_not_the_one_called():
    surfaces = ["Wilma Osterberg", "Gus"]
    for text in (
        "Wilma Osterberg, our neighbour, is the only one who still calls him Gus.",
        "Wilma Osterberg always calls him Gus.",
        "Wilma Osterberg, who calls Gus every Sunday, chairs it.",
        "Wilma Osterberg, who still calls Gus every Sunday, chairs it.",
    ):
        assert stated_alias_pairs(text, surfaces) == (), text
    for text in (
        "Wilma Osterberg, who insists everyone call her Gus, chairs it.",
        "Wilma Osterberg told them that everyone calls her Gus.",
    ):
        assert stated_alias_pairs(text, surfaces) == ((0, 1),), text


def test_a_naming_inside_a_who_clause_names_the_one_the_clause_is_about() -> None:
    surfaces = ["Imre Halasz", "Pier Road", "Bear"]
    text = "Imre Halasz, who lives on Pier Road and is known to the whole yard as Bear, waved."
    assert stated_alias_pairs(text, surfaces) == ((0, 2),)
    # Once a comma has closed the clause, the nearest name is the one named.
    text = "Imre Halasz, who lives on Pier Road, met Tom Berg, known to all as Bear."
    assert stated_alias_pairs(text, [*surfaces[:2], "Tom Berg", "Bear"]) == ((2, 3),)
