"""Qualifiers read next to a name, and when two sides' qualifiers rule out one person."""

from __future__ import annotations

from app.resolve.qualifiers import (
    Qualifier,
    compatible,
    conflict,
    content_words,
    qualifiers_in,
    said_to_be,
    shared,
)


def _said(content: str, *mentions: tuple[str, str]) -> list[tuple[Qualifier, ...]]:
    return qualifiers_in(content, [m[0] for m in mentions], [m[1] for m in mentions])


def _keys(found: tuple[Qualifier, ...]) -> list[tuple[str, str]]:
    return [(q.kind, q.key) for q in found]


def test_a_lower_case_from_phrase_ends_where_the_verb_begins() -> None:
    [sofia, _] = _said(
        "Hana Kowalski from next door lent Ravi a drill.",
        ("Hana Kowalski", "person"),
        ("Ravi", "person"),
    )
    assert _keys(sofia) == [("description", "next door")]
    [luis] = _said("Luis from the rowing club rented a boat.", ("Luis", "person"))
    assert _keys(luis) == [("description", "rowing club")]
    [mia] = _said("Mia from customs went on leave.", ("Mia", "person"))
    assert _keys(mia) == [("description", "custom")]


def test_a_phrase_stops_before_a_verb_followed_by_its_object() -> None:
    [eva] = _said("Eva from the front desk handles the keys.", ("Eva", "person"))
    assert _keys(eva) == [("description", "front desk")]


def test_after_an_object_the_phrase_keeps_its_last_noun() -> None:
    # The verb came before the name: a word followed by the verb's next object is no verb.
    [ines] = _said(
        "She lent Ines Farrow from the rowing club her copy of the tide tables.",
        ("Ines Farrow", "person"),
    )
    assert _keys(ines) == [("description", "rowing club")]
    [ines] = _said(
        "He met Ines Farrow from the rowing club the day after.", ("Ines Farrow", "person")
    )
    assert _keys(ines) == [("description", "rowing club")]


def test_a_capitalised_complement_stays_an_organisation() -> None:
    [hana, _] = _said(
        "Hana Kowalski from Osprey Labs called.",
        ("Hana Kowalski", "person"),
        ("Osprey Labs", "organization"),
    )
    assert _keys(hana) == [("organization", "osprey labs")]


def test_appositives_and_relative_clauses_describe_a_person() -> None:
    [a] = _said(
        "Kofi Mensah, who repairs the boilers in our block, came by.", ("Kofi Mensah", "person")
    )
    assert _keys(a) == [("description", "repair boiler block")]
    [b] = _said("Kofi Mensah, treasurer of the allotment society, paid.", ("Kofi Mensah", "person"))
    assert _keys(b) == [("role", "treasurer allotment society")]
    [c] = _said("Kofi Mensah, the caretaker, paid.", ("Kofi Mensah", "person"))
    assert _keys(c) == [("role", "caretaker")]


def test_a_new_clause_after_a_comma_is_no_appositive() -> None:
    [_, b] = _said("Ravi thanked Kofi, then left.", ("Ravi", "person"), ("Kofi", "person"))
    assert b == ()
    # "of" inside it, but a conjunction and a pronoun open it: a clause.
    [bram] = _said(
        "The kids call him Uncle Bram, and he gives each of them a sweet.", ("Uncle Bram", "")
    )
    assert bram == ()


def test_a_locative_adverb_after_the_name_describes_the_person() -> None:
    [a] = _said("Kofi downstairs borrowed the ladder.", ("Kofi", "person"))
    assert _keys(a) == [("description", "downstair")]
    [_, kofi] = _said(
        "Ravi lent a ladder to Kofi upstairs.", ("Ravi", "person"), ("Kofi", "person")
    )
    assert _keys(kofi) == [("description", "upstair")]
    # Right after the verb it says where to: "invited Kofi downstairs".
    [_, kofi] = _said(
        "Ravi invited Kofi downstairs for tea.", ("Ravi", "person"), ("Kofi", "person")
    )
    assert kofi == ()


def test_at_and_in_describe_only_a_clause_subject() -> None:
    [_, kofi] = _said("Ravi met Kofi at the gym.", ("Ravi", "person"), ("Kofi", "person"))
    assert kofi == ()
    [kofi2] = _said("Kofi at the bakery sold the last loaf.", ("Kofi", "person"))
    assert _keys(kofi2) == [("description", "bakery")]


def test_a_place_after_a_persons_name_in_object_position_is_where_it_happened() -> None:
    [_, chloe] = _said(
        "Aisha Kim met Chloe Garcia in Krakow to discuss the budget.",
        ("Aisha Kim", "person"),
        ("Chloe Garcia", "person"),
    )
    assert chloe == ()
    [chloe2] = _said("Chloe Garcia in Krakow signed the lease.", ("Chloe Garcia", "person"))
    assert _keys(chloe2) == [("place", "krakow")]
    # An organisation keeps its place wherever it stands: "X in Tacoma" names which X.
    [_, shop] = _said(
        "Ana signed a contract with Cedar & Vine in Tacoma.",
        ("Ana", "person"),
        ("Cedar & Vine", "organization"),
    )
    assert _keys(shop) == [("place", "tacoma")]
    # A name of no known type (local extraction found it, NER gave no type) is read as a
    # person's: where it was met is not what it is.
    [siwan, _] = _said("Met Siwan at Marta's for breakfast.", ("Siwan", ""), ("Marta", "place"))
    assert siwan == ()


def test_a_place_inside_an_appositive_role_says_who_the_person_is() -> None:
    [_, novak] = _said(
        "Aisha saw her GP, Dr. Novak at Hillside Surgery, about her wrist.",
        ("Aisha", "person"),
        ("Dr. Novak", "person"),
    )
    assert _keys(novak) == [("organization", "hillside surgery"), ("role", "gp")]
    [_, kofi] = _said(
        "Aisha thanked her neighbour, Kofi at the bakery, for the bread.",
        ("Aisha", "person"),
        ("Kofi", "person"),
    )
    assert ("description", "bakery") in _keys(kofi)
    # Without the role before it, the same phrase after an object says where it happened.
    [_, plain] = _said(
        "Aisha saw Dr. Novak at Hillside Surgery about her wrist.",
        ("Aisha", "person"),
        ("Dr. Novak", "person"),
    )
    assert plain == ()


def test_times_are_not_qualifiers() -> None:
    [_, kofi] = _said("Ravi called Kofi from home.", ("Ravi", "person"), ("Kofi", "person"))
    assert kofi == ()


def test_lower_case_phrases_describe_people_only() -> None:
    [report] = _said("Orion Report from last week is late.", ("Orion Report", "product"))
    assert report == ()


def test_content_words_drop_function_words_possessives_and_plurals() -> None:
    assert content_words("the parents' committee") == ("parent", "committee")
    assert content_words("who runs the bike shops") == ("bike", "shop")


def test_descriptions_sharing_no_word_conflict_and_sharing_one_support() -> None:
    choir = Qualifier("description", "choir", "the choir")
    director = Qualifier("role", "choir director", "our choir director")
    mechanic = Qualifier("role", "bike mechanic", "the bike mechanic")
    assert compatible(choir, director)
    assert conflict([choir], [mechanic]) == (
        "description / role qualifiers differ: the choir vs the bike mechanic"
    )
    assert conflict([choir], [director]) is None
    assert shared([director], [choir]) == (director,)


def test_descriptions_in_words_of_one_stem_support() -> None:
    club = Qualifier("description", "walking club", "the walking club")
    leader = Qualifier("role", "walk leader", "the walk leader")
    pharmacy = Qualifier("description", "pharmacy", "pharmacy")
    pharmacist = Qualifier("role", "ward pharmacist", "the ward pharmacist")
    garden = Qualifier("description", "garden centre", "the garden centre")
    garage = Qualifier("role", "garage owner", "the garage owner")
    assert conflict([club], [leader]) is None
    assert shared([leader], [club]) == (leader,)
    assert conflict([pharmacy], [pharmacist]) is None
    assert conflict([club], [pharmacist]) is not None
    assert conflict([garden], [garage]) is not None


def test_a_description_and_an_organisation_are_one_dimension() -> None:
    neighbour = Qualifier("description", "next door", "next door")
    osprey = Qualifier("organization", "osprey labs", "Osprey Labs")
    club = Qualifier("description", "rowing club", "the rowing club")
    named_club = Qualifier("organization", "eastbank rowing club", "Eastbank Rowing Club")
    assert conflict([neighbour], [osprey]) is not None
    assert conflict([club], [named_club]) is None


def test_places_are_not_compared_with_descriptions() -> None:
    place = Qualifier("place", "leeds", "Leeds")
    neighbour = Qualifier("description", "next door", "next door")
    assert conflict([place], [neighbour]) is None


def test_names_and_numbers_inside_an_appositive_are_words_of_it() -> None:
    [a] = _said("Ivana Novak, the ICU consultant, asked.", ("Ivana Novak", "person"))
    assert _keys(a) == [("role", "icu consultant")]
    [b] = _said("Farah Qureshi, the charge nurse on Ward 12, called.", ("Farah Qureshi", "person"))
    assert _keys(b) == [("role", "charge nurse ward 12")]


def test_a_relative_clause_in_the_past_is_an_event_not_who_someone_is() -> None:
    [a] = _said("It went to Peter Novak, who signed her fit to walk.", ("Peter Novak", "person"))
    assert a == ()
    [b] = _said("Peter Novak, who runs the surgery, called.", ("Peter Novak", "person"))
    assert _keys(b) == [("description", "surgery")]
    # The past perfect is a past too: what she had done, not who she is.
    [c] = _said("A card for Greta Lund, who had lent him a coat.", ("Greta Lund", "person"))
    assert c == ()
    [d] = _said("A card for Greta Lund, who did the flowers.", ("Greta Lund", "person"))
    assert d == ()
    # So is the present perfect: what she has done up to now ("a geologist" says who she is).
    [e] = _said("Ama Osei, who has surveyed the cliffs for years, spoke.", ("Ama Osei", "person"))
    assert e == ()
    [f] = _said("Ama Osei, who has a stall at the market, spoke.", ("Ama Osei", "person"))
    assert _keys(f) == [("description", "stall market")]


def test_a_role_put_before_the_name_describes_the_person() -> None:
    [a] = _said("The ward pharmacist, Rosa Delgado, caught it.", ("Rosa Delgado", "person"))
    assert _keys(a) == [("role", "ward pharmacist")]
    [b] = _said("She saw her GP, Peter Novak, today.", ("Peter Novak", "person"))
    assert _keys(b) == [("role", "gp")]
    [c] = _said(
        "Her new PhD student at Tartu University, Kofi Boateng, called.",
        ("Tartu University", "organization"),
        ("Kofi Boateng", "person"),
    )[1:]
    assert _keys(c) == [("role", "phd student tartu university")]
    # A phrase after a preposition says where or when, not who.
    [d] = _said("After lunch with the team, Rosa Delgado left.", ("Rosa Delgado", "person"))
    assert d == ()


def test_a_place_before_a_things_name_or_in_its_appositive_says_where_it_is() -> None:
    place = ("Zadar", "place")
    [shop, _] = _said(
        "Seals came from the Zadar Brodoservis today.", ("Brodoservis", "organization"), place
    )
    assert _keys(shop) == [("place", "zadar")]
    [shop, _] = _said(
        "Filters come from Brodoservis, a chandlery on the Zadar waterfront.",
        ("Brodoservis", "organization"),
        place,
    )
    assert _keys(shop) == [("place", "zadar")]
    [shop, _] = _said("He phoned Brodoservis up in Zadar.", ("Brodoservis", "organization"), place)
    assert _keys(shop) == [("place", "zadar")]
    # A capitalised word that is no place mention says nothing before the name.
    [shop] = _said("Seals came from the Friday Brodoservis order.", ("Brodoservis", "organization"))
    assert shop == ()


def test_what_and_where_a_thing_is_may_come_before_its_name_or_run_longer() -> None:
    bakery = ("Kruimel", "organization")
    [_, shop] = _said("The bakery in Mechelen, Kruimel, sold out.", ("Mechelen", "place"), bakery)
    assert _keys(shop) == [("place", "mechelen")]
    [shop, _] = _said(
        "Coffee at Kruimel, the bakery two streets from her flat in Mechelen.",
        bakery,
        ("Mechelen", "place"),
    )
    assert _keys(shop) == [("place", "mechelen")]
    # A clause after the comma says what happened, not where the thing is.
    [dock, _] = _said(
        "Because of dredging at Dock 3, the barge spent the week at Dock 13.",
        ("Dock 3", "place"),
        ("Dock 13", "place"),
    )
    assert dock == ()


def test_a_relative_clause_of_what_someone_will_do_is_no_description() -> None:
    [a] = _said(
        "Kenji Watanabe, who will stay until autumn, moved in.", ("Kenji Watanabe", "person")
    )
    assert a == ()


def test_what_someone_is_doing_for_now_supports_a_holder_and_parts_no_one() -> None:
    [a] = _said(
        "Nils Berg, who is drawing the new trail map, sent a draft.", ("Nils Berg", "person")
    )
    assert _keys(a) == [("doing", "drawing trail map")]
    [surveyor] = _said("Nils Berg, a land surveyor, came.", ("Nils Berg", "person"))
    [roofer] = _said("Nils Berg, a roofer, came.", ("Nils Berg", "person"))
    assert conflict(a, surveyor) is None
    assert conflict(roofer, surveyor) is not None
    [mapper] = _said("Nils Berg, the map maker, came.", ("Nils Berg", "person"))
    assert shared(a, mapper) == a
    # "is" with a noun phrase says who they are; so does a short word that only ends in "ing".
    [b] = _said("Nils Berg, who is our ring leader, sent a draft.", ("Nils Berg", "person"))
    assert _keys(b) == [("description", "ring leader")]
    [king] = _said(
        "Nils Berg, who is king of the quiz night, sent a draft.", ("Nils Berg", "person")
    )
    assert _keys(king) == [("description", "king quiz night")]
    [c] = _said("Nils Berg, who runs the sailing club, sent a draft.", ("Nils Berg", "person"))
    assert _keys(c) == [("description", "sailing club")]


def test_a_time_word_before_a_role_is_part_of_the_role() -> None:
    [dispatcher, _] = _said(
        "Called Imre Halasz, the night dispatcher on our line, about the slow order at Kenora.",
        ("Imre Halasz", "person"),
        ("Kenora", "place"),
    )
    assert _keys(dispatcher) == [("role", "night dispatcher line")]
    [nobody] = _said("Imre Halasz at lunch today said no.", ("Imre Halasz", "person"))
    assert nobody == ()


def test_the_writers_possessive_right_before_a_name_gives_a_role() -> None:
    [ben] = _said("Our dispatcher Ben called about the invoice.", ("Ben", "person"))
    assert _keys(ben) == [("role", "dispatcher")]
    [anna] = _said("Lunch with my neighbour Anna Weber.", ("Anna Weber", "person"))
    assert _keys(anna) == [("role", "neighbour")]
    # "his"/"her" change owner between sentences ("his dad Goran" is "his brother Goran"), and
    # "the day Ben left" says when.
    assert _said("Luka waved, and his dad Goran sent the photo.", ("Goran", "person")) == [()]
    assert _said("It rained the day Ben left.", ("Ben", "person")) == [()]


def test_what_a_subject_is_said_to_be_right_after_its_name() -> None:
    [anna, _] = _said(
        "Anna Weber works at Brightwater as a dispatcher.",
        ("Anna Weber", "person"),
        ("Brightwater", "organization"),
    )
    assert _keys(anna) == [("organization", "brightwater")]
    [ben] = _said("Ben works as a dispatcher now.", ("Ben", "person"))
    assert _keys(ben) == [("role", "dispatcher")]
    [ben] = _said("Ben is our new dispatcher.", ("Ben", "person"))
    assert _keys(ben) == [("role", "dispatcher")]
    [anna] = _said("Anna the dentist fixed my crown.", ("Anna", "person"))
    assert _keys(anna) == [("role", "dentist")]
    # Only for a subject: "gave Anna the book" names what was given.
    assert _said("I gave Anna the book back.", ("Anna", "person")) == [()]


def test_a_place_a_thing_is_based_in_is_where_it_is() -> None:
    [meridian, _] = _said(
        "Meridian Health, based in Denver, renewed.",
        ("Meridian Health", "organization"),
        ("Denver", "place"),
    )
    assert _keys(meridian) == [("place", "denver")]


def test_a_place_or_organisation_that_owns_the_name_or_stands_in_brackets_after_it() -> None:
    [anna, _] = _said(
        "Brightwater's Anna Weber called.",
        ("Anna Weber", "person"),
        ("Brightwater", "organization"),
    )
    assert _keys(anna) == [("organization", "brightwater")]
    [meridian, _] = _said(
        "Meridian Health (Denver) renewed.",
        ("Meridian Health", "organization"),
        ("Denver", "place"),
    )
    assert _keys(meridian) == [("place", "denver")]
    # An organisation's short name in brackets is an alias, and a word alone is no mention.
    [radio, _] = _said(
        "Southern Gulf Community Radio (SGCR) went live.",
        ("Southern Gulf Community Radio", "organization"),
        ("SGCR", "organization"),
    )
    assert radio == ()
    assert _said("Meridian Health (Denver) renewed.", ("Meridian Health", "organization")) == [()]


def test_a_kinship_role_says_man_or_woman_by_its_head_noun() -> None:
    [husband, _] = _said(
        "Her husband, Tomasz Nowak, whom everyone calls Tomek, rents out boats.",
        ("Tomasz Nowak", "person"),
        ("Tomek", "person"),
    )
    assert said_to_be(husband) == {"man"}
    [ana] = _said("Ana, the mother of two, runs the bakery.", ("Ana", "person"))
    assert said_to_be(ana) == {"woman"}
    # The head noun of "son's teacher" is the teacher, who is not said to be anyone's son.
    [teacher] = _said("I met her son's teacher, Mrs. Kowal, at the gate.", ("Mrs. Kowal", "person"))
    assert said_to_be(teacher) == frozenset()


def test_the_object_before_a_name_spoken_to_is_no_role() -> None:
    # A name set off at the end of its sentence is the one addressed; "the" phrase before it
    # is what the verb acts on.
    for content in ("Save me a plate of the mole, Lupe.", "Can you cover the grill, Lupe?"):
        [lupe] = _said(content, ("Lupe", "person"))
        assert lupe == (), content
    [novak] = _said("I saw her GP, Dr. Novak.", ("Dr. Novak", "person"))
    assert _keys(novak) == [("role", "gp")]
    [rosa] = _said("The ward pharmacist, Rosa Delgado, signed it.", ("Rosa Delgado", "person"))
    assert _keys(rosa) == [("role", "ward pharmacist")]


def test_kin_is_no_conflict_with_what_a_person_does():
    husband = (Qualifier("role", "husband", "husband"),)
    guide = (Qualifier("description", "know every track", "knows every track"),)
    landlord = (Qualifier("role", "landlord", "the landlord"),)
    assert conflict(husband, guide) is None
    assert conflict(landlord, husband) is None
    assert conflict(landlord, guide) is not None


def test_a_friend_flatmate_or_cousin_is_no_conflict_with_a_job():
    (flatmate,) = qualifiers_in(
        "My flatmate, Dorota Wilk, drove me in.", ["Dorota Wilk"], ["person"]
    )
    (bakery,) = qualifiers_in("Dorota works at the bakery on the square.", ["Dorota"], ["person"])
    assert flatmate and bakery
    assert conflict(flatmate, bakery) is None
    for relation in ("flatmate", "cousin", "best friend", "next-door neighbour"):
        assert conflict((Qualifier("role", relation, relation),), bakery) is None
    # Two jobs are still two people.
    assert conflict((Qualifier("role", "dentist", "the dentist"),), bakery) is not None


def test_an_office_said_as_a_title_supports_its_holder_and_parts_no_one() -> None:
    [office] = _said("Councillor Ward thanked the volunteers.", ("Councillor Ward", "person"))
    assert _keys(office) == [("office", "councillor")]
    standing = Qualifier("description", "standing town council", "is standing for the council")
    harbour = Qualifier("role", "harbour master", "the harbour master")
    assert shared(office, [standing]) == office
    assert shared(office, [harbour]) == ()
    # "Coach Varga" who is "the PE teacher": an office is worn beside a trade.
    assert conflict(office, [harbour]) is None
    # A title that says who someone is taken for is no office.
    assert _said("Dr. Ward called.", ("Dr. Ward", "person")) == [()]


def test_a_name_of_no_known_type_is_read_for_what_is_said_of_a_person() -> None:
    [ilse] = _said("Ilse Marsh, who is standing for the council, spoke.", ("Ilse Marsh", ""))
    assert _keys(ilse) == [("doing", "standing council")]


def test_a_pronoun_only_the_one_named_can_take_says_man_or_woman() -> None:
    [ines] = _said("Ines Varga took her bike in for repair.", ("Ines Varga", "person"))
    assert said_to_be(ines) == {"woman"}
    [bram] = _said("Bram has finally sold his van.", ("Bram", ""))
    assert said_to_be(bram) == {"man"}
    [ola] = _said("Watered Ola's tomatoes while she was away.", ("Ola", "person"))
    assert said_to_be(ola) == {"woman"}
    [rui] = _said("Walked with Rui to the pier. He took the long way.", ("Rui", ""))
    assert said_to_be(rui) == {"man"}
    [marta] = _said("Swam at the cove with Marta Kos and her whole crew.", ("Marta Kos", "person"))
    assert said_to_be(marta) == {"woman"}
    # Said to someone, said by someone of another, or with pronouns of both kinds: nothing.
    for content in (
        "Ines Varga gave her a lift home.",
        "Ines says he never answers the phone.",
        "Ines Varga met his sister and she laughed.",
        "Ines: He is stuck at the ferry.",
        "Ines drove him to the station so he could catch the ferry.",
        "Saw Ines and her at the bar.",
    ):
        [ines] = _said(content, ("Ines", "person"))
        assert said_to_be(ines) == frozenset(), content
    # Another person named: the pronoun may be theirs.
    [ines, bram] = _said(
        "Ines met Bram at the station and he carried the bags.",
        ("Ines", "person"),
        ("Bram", "person"),
    )
    assert said_to_be(ines) == said_to_be(bram) == frozenset()


def test_a_pronoun_neither_parts_nor_joins() -> None:
    man = (Qualifier("pronoun", "man", "his"),)
    woman = (Qualifier("pronoun", "woman", "she"),)
    assert conflict(man, woman) is None
    assert shared(man, man) == ()


def test_an_introduction_with_an_indefinite_role_describes_the_person() -> None:
    [nurse, _] = _said(
        "A night nurse, Ilse, will now visit Dad on Tuesdays.",
        ("Ilse", "person"),
        ("Dad", "person"),
    )
    assert _keys(nurse) == [("role", "night nurse")]
    # An indefinite phrase that says when, or one not closed after the name, says nothing.
    [later] = _said("A week later, Ilse, the nurse, rang.", ("Ilse", "person"))
    assert _keys(later) == [("role", "nurse")]
    [open_] = _said("A night nurse, Ilse rang twice.", ("Ilse", "person"))
    assert open_ == ()
    [inside] = _said("We met a night nurse, Ilse, at the door.", ("Ilse", "person"))
    assert inside == ()


def test_a_bare_noun_appositive_names_a_post_held_at_a_named_place() -> None:
    [coach] = _said(
        "Teo Marsh, swim coach at Harbour SC in Leith, sent the plan.", ("Teo Marsh", "person")
    )
    assert _keys(coach) == [("role", "swim coach harbour sc leith")]
    [chair] = _said("Teo Marsh, chair of the parents' committee, rang.", ("Teo Marsh", "person"))
    assert _keys(chair) == [("role", "chair parent committee")]
    # A clause after the comma is something done, not a post: a verb, a function word.
    for content in (
        "Teo Marsh, sent a crate of pears home for Mum.",
        "Teo Marsh, visiting his aunt at Fernlea, fell.",
        "Teo Marsh, back at Fernlea, rang.",
    ):
        [nothing] = _said(content, ("Teo Marsh", "person"))
        assert nothing == (), content


def test_a_place_that_modifies_what_a_thing_is_says_where_it_is() -> None:
    [firm, _] = _said(
        "The roof will be done by Kestrel Build, a Leith contractor, in June.",
        ("Kestrel Build", "organization"),
        ("Leith", "place"),
    )
    assert _keys(firm) == [("place", "leith")]
    [clause, _] = _said(
        "We hired Kestrel Build, a Leith firm that folded.",
        ("Kestrel Build", "organization"),
        ("Leith", "place"),
    )
    assert clause == ()


def test_on_names_a_place_only_when_the_text_names_one_there() -> None:
    # "on" before a word that is no place mention is a medium or a day, and a place read from it
    # would part one bakery in two; a street the fact names as a place still tells two apart.
    [medium] = _said(
        "Tomas reviewed Larkspur Bakery on Yelp.",
        ("Tomas", "person"),
        ("Larkspur Bakery", "organization"),
    )[1:]
    [day] = _said("Larkspur Bakery on Sundays sells rye.", ("Larkspur Bakery", "organization"))
    [street, _] = _said(
        "Larkspur Bakery on Quay Street opened.",
        ("Larkspur Bakery", "organization"),
        ("Quay Street", "place"),
    )
    assert medium == () and day == ()
    assert _keys(street) == [("place", "quay street")]
