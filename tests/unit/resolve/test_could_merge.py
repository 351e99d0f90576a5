from app.domain.names import name_key
from app.resolve.batch import could_merge
from app.resolve.scoring import DEFAULT_POLICY


def check(
    keys: list[str],
    entity_type: str | None,
    names: list[tuple[str, str | None]],
    *,
    is_label: bool = False,
) -> bool:
    return could_merge(
        [name_key(k) for k in keys],
        entity_type,
        is_label,
        [(name_key(n), t) for n, t in names],
        DEFAULT_POLICY,
    )


def test_a_name_that_relates_under_a_compatible_type_could_merge():
    assert check(["Sarah Chen"], "person", [("Sarah", "person")])
    assert check(["Sarah Chen"], "person", [("sarah chen", None)])
    assert check(["Quillon, Inc."], "organization", [("QUILLON INC", "organization")])
    assert check(["University of Washington"], "organization", [("UW", "organization")])


def test_guards_and_unrelated_names_rule_an_entity_out():
    assert not check(["Sarah Chen"], "person", [("Sarah Chen", "place")])  # types
    assert not check(["Alex Kim"], "person", [("Alex Moreno", "person")])  # words
    assert not check(["Iran"], "place", [("Tigran", "place")])
    assert not check(["Kaloma Brisu"], "person", [("Treth", "person"), ("Orbit", "product")])


def test_labels_need_the_identical_key_and_any_name_counts():
    assert check(["scaffolding"], "pedagogy", [("Scaffolding", "pedagogy")], is_label=True)
    assert not check(["scaffolding"], "pedagogy", [("scaffold", "pedagogy")], is_label=True)
    assert check(["Ocean Probe 1", "OP-1"], "product", [("op-1", "product")])
