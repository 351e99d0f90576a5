from app.domain.names import name_form, name_key, type_class
from app.resolve.cluster import cluster_names, cluster_new_names, short_forms_ahead


def forms(*names: tuple[str, str]):
    return [name_form(name_key(text), type_class(t)) for text, t in names]


def test_title_variant_of_a_new_name_makes_one_entity_in_a_batch():
    groups = cluster_new_names(
        [("Dr. Priya Raman", "person"), ("Okta", "product"), ("Priya Raman", "person")]
    )
    assert groups == [(0, 2), (1,)]


def test_a_bare_first_name_in_another_item_of_the_batch_does_not_join():
    assert cluster_new_names([("Priya Raman", "person"), ("Priya", "person")]) == [(0,), (1,)]


def test_first_name_beside_the_full_name_in_one_fact_joins_it():
    assert cluster_names(forms(("Priya Raman", "person"), ("Priya", "person"))) == [(0, 1)]


def test_short_name_between_two_namesakes_stays_alone():
    groups = cluster_names(
        forms(("Alex", "person"), ("Alex Kim", "person"), ("Alex Moreno", "person"))
    )
    assert groups == [(0,), (1,), (2,)]


def test_no_chain_through_a_conflict():
    groups = cluster_names(
        forms(("J. Smith", "person"), ("John Smith", "person"), ("Jane Smith", "person"))
    )
    assert groups == [(0,), (1,), (2,)]


def test_members_of_a_series_never_cluster():
    assert cluster_new_names([("Room 4A", "place"), ("Room 4B", "place")]) == [(0,), (1,)]


def test_place_inside_a_venue_name_does_not_cluster_within_a_fact():
    assert cluster_names(forms(("Seattle", "place"), ("Town Hall Seattle", "place"))) == [
        (0,),
        (1,),
    ]


def test_stated_alias_clusters_names_that_share_no_word():
    groups = cluster_names(forms(("Robert Smith", "person"), ("Bob", "person")), stated=[(0, 1)])
    assert groups == [(0, 1)]


def test_stated_alias_across_types_is_refused():
    groups = cluster_names(
        forms(("Meridian Health", "organization"), ("Boston", "place")), stated=[(0, 1)]
    )
    assert groups == [(0,), (1,)]


def test_stated_alias_across_a_guessed_type_is_one_name_and_two_firm_types_are_not():
    names = forms(("Oluwaseun Adeyemi", "person"), ("Seun", "place"))
    # "Oluwaseun Adeyemi, whom the kids call Seun": NER's "place" for Seun is a guess.
    assert cluster_names(names, stated=[(0, 1)], guessed=[1]) == [(0, 1)]
    assert cluster_names(names, stated=[(0, 1)]) == [(0,), (1,)]
    # A guess still keeps apart what the text does not say is one.
    paris = forms(("Paris Hilton", "person"), ("Paris", "place"))
    assert cluster_names(paris, guessed=[0, 1]) == [(0,), (1,)]


def test_empty_names_stay_alone():
    assert cluster_new_names([("…", None), ("Okta", "product")]) == [(0,), (1,)]


def test_kin_named_beside_a_name_of_its_surname_stays_apart_unless_stated_to_be_it():
    # "Captain Lund thanked her brother, Nils Lund": the brother is not the captain.
    names = forms(("Captain Lund", "person"), ("Nils Lund", "person"))
    assert cluster_names(names) == [(0, 1)]
    assert cluster_names(names, relatives=[1]) == [(0,), (1,)]
    # "Nils Lund, her brother, whom everyone calls Nisse": a stated name is still his.
    names = forms(("Nils Lund", "person"), ("Nisse", "person"))
    assert cluster_names(names, stated=[(0, 1)], relatives=[0]) == [(0, 1)]


def known_as(*names: str):
    return (tuple(name_form(name_key(n), "person") for n in names),)


def test_a_title_the_bank_knows_as_another_persons_does_not_cluster_with_an_untitled_namesake():
    # "Piet Haldane found me an ice pack, and Dr. Haldane cleared me": the bank calls Dr.
    # Miriam Haldane "Dr. Haldane", so the fact may name two Haldanes.
    names = forms(("Piet Haldane", "person"), ("Dr. Haldane", "person"))
    assert cluster_names(names) == [(0, 1)]
    known = {1: known_as("Dr. Miriam Haldane", "Dr. Haldane")}
    assert cluster_names(names, known=known) == [(0,), (1,)]


def test_a_known_title_still_clusters_with_its_own_bearer_or_a_titled_full_name():
    known = {1: known_as("Dr. Miriam Haldane", "Dr. Haldane")}
    same = forms(("Miriam Haldane", "person"), ("Dr. Haldane", "person"))
    assert cluster_names(same, known=known) == [(0, 1)]
    titled = forms(("Dr. Piet Haldane", "person"), ("Dr. Haldane", "person"))
    assert cluster_names(titled, known=known) == [(0, 1)]


def test_a_bare_first_name_beside_its_full_name_clusters_whoever_else_bears_it():
    names = forms(("Piet Haldane", "person"), ("Piet", "person"))
    assert cluster_names(names, known={1: known_as("Piet Ostrander", "Piet")}) == [(0, 1)]


def test_a_short_form_written_ahead_of_its_full_form_in_one_sentence_is_someone_else():
    # A name refers back to one given before it: the girl is not the woman she shows it to.
    content = "After dinner little Greta showed Greta Holm the kite she built."
    names = forms(("Greta", "person"), ("Greta Holm", "person"))
    ahead = short_forms_ahead(content, ["Greta", "Greta Holm"], names)
    assert ahead == {(0, 1)}
    assert cluster_names(names, ahead=ahead) == [(0,), (1,)]
    # Written after it, on both sides of it, or in another sentence: it refers back as ever.
    for text in (
        "Greta Holm flew the kite Greta built.",
        "Greta came by. Greta Holm is her full name.",
        "Greta showed Greta Holm's kite to Greta.",
    ):
        ahead = short_forms_ahead(text, ["Greta", "Greta Holm"], names)
        assert cluster_names(names, ahead=ahead) == [(0, 1)], text


def test_a_full_name_in_capitals_after_its_short_form_is_that_name_as_printed():
    # A letter, a ticket or a label prints the name: the sentence quotes it, it meets no one.
    content = "After dinner Greta got a letter addressed to GRETA HOLM from the tax office."
    names = forms(("Greta", "person"), ("GRETA HOLM", "person"))
    ahead = short_forms_ahead(content, ["Greta", "GRETA HOLM"], names)
    assert ahead == set()
    assert cluster_names(names, ahead=ahead) == [(0, 1)]
