import pytest

from app.domain.banks import EntityLabel
from app.errors import InvalidInput
from app.retain.labels import check_entity_labels
from app.retain.schemas import EntityHint, RetainItem

LABELS = (
    EntityLabel(name="pedagogy", values=("scaffolding", "Modelling")),
    EntityLabel(name="topic"),
    EntityLabel(name="level", values=("a1", "a2"), multiple=True),
)


def items(*entities: tuple[str, str | None]) -> list[RetainItem]:
    return [
        RetainItem(content="ok"),
        RetainItem(content="x", entities=[EntityHint(text=t, type=k) for t, k in entities]),
    ]


def test_values_of_a_label_pass_whatever_their_case_and_spacing():
    check_entity_labels(LABELS, items(("Scaffolding", "Pedagogy"), ("photosynthesis", "topic")))
    check_entity_labels(LABELS, items(("  MODELLING", "pedagogy"), ("anything at all", "topic")))


def test_a_value_outside_the_values_names_the_item_and_entity():
    with pytest.raises(InvalidInput) as err:
        check_entity_labels(LABELS, items(("Ana", "person"), ("scafolding", "pedagogy")))
    assert err.value.extra == {
        "field": "$.items[1].entities[1]",
        "label": "pedagogy",
        "value": "scafolding",
    }
    assert "scafolding" in err.value.detail and "scaffolding" in err.value.detail


def test_one_value_per_item_unless_the_label_takes_several():
    with pytest.raises(InvalidInput, match="one value per item"):
        check_entity_labels(LABELS, items(("scaffolding", "pedagogy"), ("modelling", "pedagogy")))
    check_entity_labels(LABELS, items(("scaffolding", "pedagogy"), ("Scaffolding", "pedagogy")))
    check_entity_labels(LABELS, items(("a1", "level"), ("a2", "level")))


def test_no_labels_or_untyped_entities_are_not_checked():
    check_entity_labels((), items(("scafolding", "pedagogy")))
    check_entity_labels(LABELS, items(("scafolding", None)))
