"""What a settle of facts a crash left marked must cover, read back from their mentions."""

from __future__ import annotations

from app.domain.names import name_key
from app.resolve.settle_store import MarkedFact, MarkedMention, pending_of_marked


def test_marked_facts_give_one_pending_settle_per_bank():
    facts = [
        MarkedFact(
            "b1",
            "m1",
            [
                MarkedMention("e-anna", "Anna Berg", "person"),
                MarkedMention("e-oslo", "Oslo", "place", type_guessed=True),
            ],
        ),
        MarkedFact("b1", "m2", [MarkedMention("e-anna", "Anna", None)]),
        MarkedFact("b2", "m3", [MarkedMention("e-x", "Xavier", "person")]),
        MarkedFact("b2", "m4", []),  # a fact without mentions is only unmarked
    ]
    pending = pending_of_marked(facts)
    assert set(pending) == {"b1", "b2"}
    b1 = pending["b1"]
    assert b1.touched == {"e-anna", "e-oslo"}
    assert b1.memory_ids == {"m1", "m2"}
    # A guessed type is looked up as no type, as the write looked it up.
    assert b1.names == {
        (name_key("Anna Berg"), "person"),
        (name_key("Oslo"), None),
        (name_key("Anna"), None),
    }
    # Which mentions dissented is not kept: every entity they touched is recounted.
    assert b1.retype == b1.touched
    assert pending["b2"].memory_ids == {"m3", "m4"}
    assert pending["b2"].touched == {"e-x"}
