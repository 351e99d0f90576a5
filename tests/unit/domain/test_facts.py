"""Which fact types a recall reads when the caller names none."""

from app.domain.facts import recall_types


def test_without_types_recall_reads_facts_not_observations() -> None:
    assert recall_types(None) == ("world", "experience")
    assert recall_types([]) == ("world", "experience")


def test_prefer_observations_adds_them() -> None:
    assert recall_types(None, prefer_observations=True) == ("world", "experience", "observation")


def test_asked_types_are_read_as_asked_once_each() -> None:
    assert recall_types(["observation", "observation"]) == ("observation",)
    assert recall_types(["experience"], prefer_observations=True) == ("experience",)
