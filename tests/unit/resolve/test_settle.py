from datetime import UTC, datetime, timedelta

from app.resolve.batch import FactInput, names_to_load, resolve_one
from app.resolve.memory_bank import (
    MAX_BLOCK_ENTITIES,
    MAX_SETTLE_FACTS,
    MemoryBank,
    block_of,
    split_block,
    take_within,
)
from app.resolve.model import Mention
from app.resolve.scoring import DEFAULT_POLICY, hub_degree
from app.resolve.settle import SettleFact, SettleMention, plan, replay
from app.resolve.working_set import WorkingEntity, WorkingSet

T0 = datetime(2027, 1, 1, tzinfo=UTC)


def fact(day: int, content: str, *mentions: tuple[str, str]) -> FactInput:
    return FactInput(
        mentions=tuple(Mention(text=t, type=k) for t, k in mentions),
        at=T0 + timedelta(days=day),
        content=content,
        memory_id=f"m{day:03d}",
    )


FACTS = [
    fact(
        1,
        "Tobias Lindqvist, the landlord, fixed the radiator on Alder Street.",
        ("Tobias Lindqvist", "person"),
        ("Alder Street", "place"),
    ),
    fact(
        2,
        "Tobias said the Alder Street flat gets a new boiler.",
        ("Tobias", "person"),
        ("Alder Street", "place"),
    ),
    fact(
        8,
        "Tobias Achterberg coaches at the Riverbend Cycling Club.",
        ("Tobias Achterberg", "person"),
        ("Riverbend Cycling Club", "organization"),
    ),
    fact(
        9,
        "Tobias from the Riverbend Cycling Club posted the route.",
        ("Tobias", "person"),
        ("Riverbend Cycling Club", "organization"),
    ),
    fact(40, "Tobias cancelled the ride.", ("Tobias", "person")),
    fact(
        12,
        "Cedar & Vine in Tacoma baked the bread.",
        ("Cedar & Vine", "organization"),
        ("Tacoma", "place"),
    ),
    fact(
        30,
        "Cedar & Vine in Spokane wants a delivery.",
        ("Cedar & Vine", "organization"),
        ("Spokane", "place"),
    ),
    fact(3, "Valentina Ruiz walked through the policy.", ("Valentina Ruiz", "person")),
    fact(200, "Valentina Ruiz retired.", ("Valentina Ruiz", "person")),
]


def partition(bank: MemoryBank) -> set[frozenset[str]]:
    groups: dict[str, set[str]] = {}
    for f in bank.facts:
        for m in f.mentions:
            groups.setdefault(m.entity_id, set()).add(f"{f.memory_id}:{m.text}")
    return {frozenset(g) for g in groups.values()}


def retained(facts: list[FactInput]) -> set[frozenset[str]]:
    bank = MemoryBank()
    for f in facts:
        bank.retain(f)
    return partition(bank)


def assert_joins_its_only_holder(long_form: FactInput, short: FactInput, rival: FactInput) -> None:
    """``short`` joins ``long_form`` in either order, and with ``rival`` in sight joins no one."""
    long_slot = f"{long_form.memory_id}:{long_form.mentions[0].text}"
    short_slot = f"{short.memory_id}:{short.mentions[0].text}"
    one = {frozenset({long_slot, short_slot})}
    assert retained([long_form, short]) == one == retained([short, long_form])
    assert frozenset({short_slot}) in retained([long_form, short, rival])


def test_settled_identities_do_not_depend_on_arrival_order():
    ordered = sorted(FACTS, key=lambda f: f.at)
    forward, reverse, shuffled = (
        retained(ordered),
        retained(ordered[::-1]),
        retained(ordered[1::2] + ordered[::2]),
    )
    assert forward == reverse == shuffled


def test_a_short_name_joins_the_holder_its_evidence_points_to_and_no_one_otherwise():
    identities = retained(sorted(FACTS, key=lambda f: f.at)[::-1])
    assert frozenset({"m001:Tobias Lindqvist", "m002:Tobias"}) in identities
    assert frozenset({"m008:Tobias Achterberg", "m009:Tobias"}) in identities
    assert frozenset({"m040:Tobias"}) in identities


def test_a_name_said_with_two_cities_is_two_entities_and_a_full_name_joins_across_months():
    identities = retained(sorted(FACTS, key=lambda f: f.at))
    assert frozenset({"m012:Cedar & Vine"}) in identities
    assert frozenset({"m030:Cedar & Vine"}) in identities
    assert frozenset({"m003:Valentina Ruiz", "m200:Valentina Ruiz"}) in identities


def test_a_bare_name_the_first_pass_gives_to_whoever_came_first_is_settled_apart():
    facts = [
        fact(1, "Anna Berg signed the lease.", ("Anna Berg", "person")),
        fact(2, "Anna called about the keys.", ("Anna", "person")),
        fact(3, "Anna Schmidt moved in upstairs.", ("Anna Schmidt", "person")),
    ]

    def run(order: list[FactInput], settle: bool) -> set[frozenset[str]]:
        bank = MemoryBank(settle=settle)
        for f in order:
            bank.retain(f)
        return partition(bank)

    assert run(facts, settle=False) != run(facts[::-1], settle=False)
    assert run(facts, settle=True) == run(facts[::-1], settle=True)
    assert frozenset({"m002:Anna"}) in run(facts, settle=True)


def test_plan_keeps_each_entitys_largest_part_and_merges_what_the_replay_joined():
    first = {"a": T0, "b": T0 + timedelta(days=1), "c": T0 + timedelta(days=2)}
    targets = {
        ("m1", "a", "A"): "settle-0001",
        ("m2", "a", "A"): "settle-0001",
        ("m3", "a", "A"): "settle-0002",
        ("m4", "b", "B"): "settle-0002",
        ("m5", "b", "B"): "settle-0002",
        ("m6", "c", "C"): "anchor",
    }
    settled = plan(targets, first)
    assert [(s.entity_id, s.memory_ids) for s in settled.splits] == [("a", ("m3",))]
    assert [(m.keep, m.gone) for m in settled.merges] == [("anchor", "c"), ("b", "a~settle-0002")]
    assert settled.final == {"anchor": "anchor", "settle-0001": "a", "settle-0002": "b"}


def test_plan_of_a_settled_block_is_empty():
    targets = {("m1", "a", "A"): "settle-0001", ("m2", "b", "B"): "settle-0002"}
    assert plan(targets, {}).empty


def test_a_bare_name_with_one_holder_in_sight_joins_it_months_later_and_two_holders_do_not():
    one = [
        fact(1, "Tomas Lindqvist planned a trip.", ("Tomas Lindqvist", "person")),
        fact(90, "Tomas started a pottery class.", ("Tomas", "person")),
        fact(200, "Tomas sold a bowl.", ("Tomas", "person")),
    ]
    assert retained(one) == {
        frozenset({"m001:Tomas Lindqvist", "m090:Tomas", "m200:Tomas"}),
    }
    two = [*one, fact(50, "Tomas Berg fixed the roof.", ("Tomas Berg", "person"))]
    identities = retained(two)
    assert frozenset({"m090:Tomas"}) in identities
    assert frozenset({"m200:Tomas"}) in identities


def test_a_guessed_type_is_no_guard_and_a_supplied_one_is():
    def helen(day: int, kind: str, guessed: bool) -> FactInput:
        return FactInput(
            mentions=(Mention(text="Helen", type=kind, type_guessed=guessed),),
            at=T0 + timedelta(days=day),
            content="Helen played a solo.",
            memory_id=f"m{day:03d}",
        )

    first = fact(1, "Helen Okafor joined the orchestra.", ("Helen Okafor", "person"))
    # spaCy calls her an organisation in one sentence: she is still the one Helen in sight.
    assert retained([first, helen(60, "organization", guessed=True)]) == {
        frozenset({"m001:Helen Okafor", "m060:Helen"})
    }
    assert len(retained([first, helen(60, "organization", guessed=False)])) == 2


def test_a_name_a_local_model_typed_otherwise_is_no_second_holder_of_it():
    def said(day: int, content: str, text: str, kind: str, guessed: bool = True) -> FactInput:
        return FactInput(
            mentions=(Mention(text=text, type=kind, type_guessed=guessed),),
            at=T0 + timedelta(days=day),
            content=content,
            memory_id=f"m{day:03d}",
        )

    # "Helen's" tagged an organisation, "Helen Okafor" a place: guesses, so the person Helen
    # of the chat lines is not torn between two bearers of her name, each line a person alone.
    facts = [
        said(10, "Had lunch at Helen's cafe.", "Helen", "organization"),
        said(20, "Helen: new cake on the counter", "Helen", "person"),
        said(30, "Helen: last slice is yours", "Helen", "person"),
        said(40, "Leave the parcel with Mrs. Okafor.", "Mrs. Okafor", "person", guessed=False),
        said(50, "Helen Okafor, owner of a cafe, raised money.", "Helen Okafor", "place"),
        said(70, "Helen: the oven broke", "Helen", "person"),
    ]
    for order in (facts, facts[::-1]):
        [chat] = {s for s in retained(order) if "m020:Helen" in s}
        assert {"m030:Helen", "m070:Helen"} <= chat


def test_kin_called_by_a_given_name_is_the_one_of_that_given_name():
    # "Auntie Ngozi" is Ngozi with a form of address before her name: with "Ngozi Obi" and a
    # bare "Ngozi" beside her, one person, not two full names that make "Ngozi" a tie.
    facts = [
        fact(10, "Auntie Ngozi sent jollof for the party.", ("Auntie Ngozi", "person")),
        fact(20, "Ngozi Obi turned seventy today.", ("Ngozi Obi", "person")),
        fact(30, "Called Ngozi about the wedding photos.", ("Ngozi", "person")),
        fact(40, "Auntie Ngozi is staying until Sunday.", ("Auntie Ngozi", "person")),
    ]
    everyone = frozenset(f"{f.memory_id}:{f.mentions[0].text}" for f in facts)
    for order in (facts, facts[::-1]):
        assert retained(order) == {everyone}


def test_a_short_form_of_a_things_name_joins_its_only_holder_but_a_place_inside_a_place_does_not():
    facts = [
        fact(1, "We moved the budget to Microsoft Excel.", ("Microsoft Excel", "product")),
        fact(120, "Excel crashed again.", ("Excel", "product")),
        fact(2, "Kelso depot closed early.", ("Kelso depot", "place")),
        fact(130, "Kelso had snow.", ("Kelso", "place")),
    ]
    identities = retained(facts)
    assert frozenset({"m001:Microsoft Excel", "m120:Excel"}) in identities
    assert frozenset({"m130:Kelso"}) in identities


def test_a_places_short_form_that_keeps_every_word_joins_its_only_holder():
    mount = fact(1, "We hiked up Mount Hood.", ("Mount Hood", "place"))
    short = fact(150, "Snow on Mt. Hood already.", ("Mt. Hood", "place"))
    rival = fact(160, "Mount Hedley has snow too.", ("Mount Hedley", "place"))
    assert retained([mount, short]) == {frozenset({"m001:Mount Hood", "m150:Mt. Hood"})}
    assert retained([short, mount]) == retained([mount, short])
    assert len(retained([mount, short, rival])) == 2
    city = fact(1, "Landed in New York City.", ("New York City", "place"))
    initials = fact(200, "Back to NYC in May.", ("NYC", "place"))
    one = {frozenset({"m001:New York City", "m200:NYC"})}
    assert retained([city, initials]) == one == retained([initials, city])


def test_a_place_named_beside_a_thing_called_after_it_stays_apart_from_it_in_any_order():
    facts = [
        fact(1, "The crew inspected Halden Solar Farm.", ("Halden Solar Farm", "place")),
        fact(
            5,
            "The crew slept in the town of Halden, ten minutes from Halden Solar Farm.",
            ("Halden", "place"),
            ("Halden Solar Farm", "place"),
        ),
        fact(9, "Halden Solar Farm tripped a breaker.", ("Halden Solar Farm", "place")),
        fact(30, "We drove back to Halden for the market.", ("Halden", "place")),
    ]
    town = frozenset({"m005:Halden", "m030:Halden"})
    assert town in retained(facts)
    assert town in retained(facts[::-1])


def test_a_nickname_stated_beside_a_full_name_is_that_persons_name_in_any_order():
    facts = [
        fact(
            1,
            "Imre Halasz, the crane driver whom the whole yard calls Bear, lifted the hull.",
            ("Imre Halasz", "person"),
            ("Bear", "person"),
        ),
        fact(5, "Bear painted the keel.", ("Bear", "person")),
        fact(9, "Bear launched the boat.", ("Bear", "person")),
    ]
    one = frozenset({"m001:Imre Halasz", "m001:Bear", "m005:Bear", "m009:Bear"})
    assert retained(facts) == {one} == retained(facts[::-1])


def test_a_numbered_things_nickname_joins_it_and_no_other_number_of_its_series():
    facts = [
        fact(
            1,
            "Unit 7, the one the crew calls the Beast, failed its brake test.",
            ("Unit 7", "product"),
            ("the Beast", "product"),
        ),
        fact(5, "The crew says the Beast is back in service.", ("the Beast", "product")),
        fact(9, "Unit 8 failed its brake test too.", ("Unit 8", "product")),
        fact(12, "Unit 7 needs new pads.", ("Unit 7", "product")),
    ]
    beast = frozenset({"m001:Unit 7", "m001:the Beast", "m005:the Beast", "m012:Unit 7"})
    assert retained(facts) == {beast, frozenset({"m009:Unit 8"})} == retained(facts[::-1])


def test_a_name_with_its_nickname_in_quotes_joins_its_formal_and_nickname_forms():
    facts = [
        fact(
            1, "Robert “Bobby” Tanaka coaches the under-nines.", ("Robert “Bobby” Tanaka", "person")
        ),
        fact(4, "Bobby Tanaka moved training to Thursdays.", ("Bobby Tanaka", "person")),
        fact(8, "Robert Tanaka emailed the fixture list.", ("Robert Tanaka", "person")),
    ]
    one = frozenset({"m001:Robert “Bobby” Tanaka", "m004:Bobby Tanaka", "m008:Robert Tanaka"})
    assert retained(facts) == {one} == retained(facts[::-1])


def test_a_guessed_type_looks_up_names_of_every_type():
    guessed = FactInput(
        mentions=(Mention(text="Caroline", type="organization", type_guessed=True),),
        at=T0,
        content="Caroline baked bread.",
    )
    supplied = FactInput(mentions=(Mention(text="Caroline", type="organization"),), at=T0)
    assert names_to_load([guessed]) == [("caroline", None)]
    assert names_to_load([supplied]) == [("caroline", "organization")]


def test_a_qualifier_named_by_a_mention_the_settle_keeps_in_place_still_counts() -> None:
    # A settle replays a fact with the mentions outside its block given, not decided. In a
    # script without letter case only the mention after "from" says that a qualifier is
    # there: read without it, two namesakes from different firms looked alike, and the
    # outcome depended on which entities a settle's block happened to hold.
    ws = WorkingSet(bank_entities=10)
    first = resolve_one(
        ws,
        fact(
            1,
            "李娜 from 星河物流 signed the lease.",
            ("李娜", "person"),
            ("星河物流", "organization"),
        ),
    )
    other_firm = ws.create("远山银行", "organization", T0, is_label=False)
    apart = resolve_one(
        ws,
        fact(
            5,
            "李娜 from 远山银行 called about the loan.",
            ("李娜", "person"),
            ("远山银行", "organization"),
        ),
        {1: other_firm},
    )
    assert apart[0] != first[0]
    same_firm = resolve_one(
        ws,
        fact(
            9, "李娜 from 星河物流 sent the keys.", ("李娜", "person"), ("星河物流", "organization")
        ),
        {1: first[1]},
    )
    assert same_firm[0] == first[0]


def test_both_ascii_spellings_of_a_marked_name_join_it_in_any_order() -> None:
    facts = [
        fact(1, "Jörg Müller leads the warehouse audit.", ("Jörg Müller", "person")),
        fact(20, "Joerg Mueller sent the audit schedule.", ("Joerg Mueller", "person")),
        fact(45, "Jorg Muller approved the overtime.", ("Jorg Muller", "person")),
    ]
    one = {frozenset({"m001:Jörg Müller", "m020:Joerg Mueller", "m045:Jorg Muller"})}
    for order in (facts, facts[::-1], [facts[1], facts[2], facts[0]]):
        assert retained(order) == one
    # Without the marked name, nothing says the two ASCII forms are one name.
    assert len(retained(facts[1:])) == 2


def test_a_things_name_with_a_run_of_words_written_as_initials_joins_its_only_holder() -> None:
    facts = [
        fact(1, "The crews moved to Blue Harbor Tracker.", ("Blue Harbor Tracker", "product")),
        fact(30, "BH Tracker crashed on the night shift.", ("BH Tracker", "product")),
        fact(90, "Blue Harbor Tracker got an update.", ("Blue Harbor Tracker", "product")),
    ]
    one = {frozenset({"m001:Blue Harbor Tracker", "m030:BH Tracker", "m090:Blue Harbor Tracker"})}
    assert retained(facts) == one and retained(facts[::-1]) == one
    # Two things it could equally stand for: no guess.
    pair = [
        fact(1, "The crews moved to Blue Harbor Tracker.", ("Blue Harbor Tracker", "product")),
        fact(59, "Bright Hill Tracker went live.", ("Bright Hill Tracker", "product")),
        fact(30, "BH Tracker crashed on the night shift.", ("BH Tracker", "product")),
    ]
    assert frozenset({"m030:BH Tracker"}) in retained(pair)


def test_an_acronym_joins_the_only_thing_it_stands_for_and_no_one_of_two() -> None:
    long_form = fact(
        1,
        "Kestrel Valley Medical Center runs the screening.",
        ("Kestrel Valley Medical Center", "organization"),
    )
    acronym = fact(4, "KVMC sent the results.", ("KVMC", "organization"))
    rival = fact(
        7,
        "Kings View Medical Center opened a clinic.",
        ("Kings View Medical Center", "organization"),
    )
    assert_joins_its_only_holder(long_form, acronym, rival)


def test_a_title_and_a_hyphenated_surname_join_its_only_holder_and_no_one_of_two() -> None:
    full = fact(
        1, "Ingrid Halvorsen-Mbeki runs the print studio.", ("Ingrid Halvorsen-Mbeki", "person")
    )
    titled = fact(30, "Dr. Halvorsen-Mbeki reviewed the grant.", ("Dr. Halvorsen-Mbeki", "person"))
    rival = fact(9, "Piet Halvorsen-Mbeki sells the paper.", ("Piet Halvorsen-Mbeki", "person"))
    assert_joins_its_only_holder(full, titled, rival)


def test_a_nickname_stated_in_brackets_after_a_full_name_is_a_name_of_that_person() -> None:
    facts = [
        fact(
            1,
            "Wilhelmina Strand (Mina) opened the gallery.",
            ("Wilhelmina Strand", "person"),
        ),
        fact(40, "Mina hung the new prints.", ("Mina", "person")),
        fact(90, "Wilhelmina Strand closed for the winter.", ("Wilhelmina Strand", "person")),
    ]
    one = {frozenset({"m001:Wilhelmina Strand", "m040:Mina", "m090:Wilhelmina Strand"})}
    assert retained(facts) == one == retained(facts[::-1])
    # In brackets without being a form of the name, a word is not read as one.
    unsaid = [
        fact(1, "Wilhelmina Strand (Oslo) opened the gallery.", ("Wilhelmina Strand", "person")),
        fact(40, "Oslo hung the new prints.", ("Oslo", "person")),
    ]
    assert len(retained(unsaid)) == 2


def test_a_contracted_word_joins_the_only_thing_it_can_shorten_and_no_one_of_two() -> None:
    long_form = fact(
        1, "We bought Mastodon Calendar for the team.", ("Mastodon Calendar", "product")
    )
    short = fact(20, "MS Calendar lost the calendar again.", ("MS Calendar", "product"))
    rival = fact(9, "Moonstone Calendar shipped an update.", ("Moonstone Calendar", "product"))
    assert_joins_its_only_holder(long_form, short, rival)


def test_a_plain_full_name_of_two_namesakes_joins_neither_when_their_company_is_the_same() -> None:
    # Two people share a full name and are told apart by what is said next to it. A mention
    # with nothing next to it, beside someone both of them know, is not evidence for either:
    # decided in time order it joined whichever had met that someone first.
    facts = [
        fact(
            1,
            "Daniel Okafor from the choir asked Priya to play at the concert.",
            ("Daniel Okafor", "person"),
            ("Priya", "person"),
        ),
        fact(
            2,
            "Daniel Okafor, who runs the bike shop, trued the wheel.",
            ("Daniel Okafor", "person"),
        ),
        fact(
            20,
            "Priya bought a bell from Daniel Okafor at the bike shop.",
            ("Priya", "person"),
            ("Daniel Okafor", "person"),
        ),
        fact(
            50,
            "Daniel Okafor, the bike mechanic, sold Priya a helmet.",
            ("Daniel Okafor", "person"),
            ("Priya", "person"),
        ),
        fact(60, "Daniel Okafor from the choir picked the anthem.", ("Daniel Okafor", "person")),
    ]
    for order in (facts, facts[::-1]):
        identities = retained(order)
        assert frozenset({"m020:Daniel Okafor"}) in identities
        assert frozenset({"m001:Daniel Okafor", "m060:Daniel Okafor"}) in identities


def test_a_qualifier_named_by_a_mention_decided_in_a_later_pass_still_counts() -> None:
    # "Tacoma" is a one-word name, decided after the full names; "from Tacoma" still states
    # a place, not an organisation called Tacoma, so it conflicts with "in Spokane".
    facts = [
        fact(
            1,
            "Cedar & Vine in Tacoma baked the bread.",
            ("Cedar & Vine", "organization"),
            ("Tacoma", "place"),
        ),
        fact(
            2,
            "Cedar & Vine in Spokane wants a delivery.",
            ("Cedar & Vine", "organization"),
            ("Spokane", "place"),
        ),
        fact(
            3,
            "Cedar & Vine from Tacoma missed the pickup.",
            ("Cedar & Vine", "organization"),
            ("Tacoma", "place"),
        ),
        fact(4, "Cedar & Vine in Spokane doubled its order.", ("Cedar & Vine", "organization")),
    ]
    for order in (facts, facts[::-1]):
        identities = retained(order)
        assert frozenset({"m001:Cedar & Vine", "m003:Cedar & Vine"}) in identities
        assert frozenset({"m002:Cedar & Vine", "m004:Cedar & Vine"}) in identities


def test_a_settle_covering_many_writes_still_takes_in_the_holders_of_their_names() -> None:
    # Writes joined into one settle may touch more entities than a block grows by; the holders
    # of their names must still be replayed, or a bare name keeps the first pass's guess.
    bank = MemoryBank(settle=False)
    bank.retain(fact(1, "Farah Bello teaches the wheel course.", ("Farah Bello", "person")))
    others = [f"Person{chr(65 + i // 26)}{chr(65 + i % 26)} Example" for i in range(70)]
    for day, name in enumerate(others, start=2):
        bank.retain(fact(day, f"{name} came by.", (name, "person")))
    ws = bank.working_set()
    touched = [m.entity_id for f in bank.facts[1:] for m in f.mentions]
    assert len(touched) > MAX_BLOCK_ENTITIES
    # The joined writes also named a bare "Farah".
    block = block_of(ws, [("farah", "person")], touched)
    assert bank.facts[0].mentions[0].entity_id in block


def test_a_block_takes_in_the_other_holders_of_a_name_its_walk_reached_last() -> None:
    # The walk reaches the bare "Noor" only in its last round (through three facts of company,
    # then a name); the other holder of that name must be replayed with it, or the settle
    # would decide "Noor" against the one holder it happened to see.
    bank = MemoryBank(settle=False)
    bank.retain(
        fact(1, "Anna Berg met Bruno Ferro.", ("Anna Berg", "person"), ("Bruno Ferro", "person"))
    )
    bank.retain(
        fact(2, "Bruno Ferro met Carla Diaz.", ("Bruno Ferro", "person"), ("Carla Diaz", "person"))
    )
    bank.retain(
        fact(3, "Carla Diaz met Noor Haddad.", ("Carla Diaz", "person"), ("Noor Haddad", "person"))
    )
    bank.retain(fact(4, "Noor Osei sang at the fair.", ("Noor Osei", "person")))
    bank.retain(fact(5, "Noor fixed the boiler.", ("Noor", "person")))
    ws = bank.working_set()
    anna, osei, noor = (bank.facts[i].mentions[0].entity_id for i in (0, 3, 4))
    assert noor not in {m.entity_id for f in bank.facts[:4] for m in f.mentions}
    block = block_of(ws, [("anna berg", "person")], [anna])
    assert noor in block and osei in block


def test_a_full_block_keeps_the_company_shared_most_whatever_the_ids() -> None:
    # Three facts with the clinic, one with the bakery and with the gym: room for two more.
    company = {"z-clinic": 3, "a-bakery": 1, "m-gym": 1}
    degree = {"z-clinic": 40, "a-bakery": 12, "m-gym": 2}.__getitem__
    assert take_within(3, set(), {"q-holder"}, company, degree) == {"q-holder", "z-clinic", "m-gym"}
    # The names come first, whatever the company.
    assert take_within(1, set(), {"q-holder"}, company, degree) == {"q-holder"}
    # Renamed ids (another run, another order) keep the same picks.
    renamed = {"a-clinic": 3, "z-bakery": 1, "b-gym": 1}
    degree2 = {"a-clinic": 40, "z-bakery": 12, "b-gym": 2}.__getitem__
    assert take_within(2, set(), set(), renamed, degree2) == {"a-clinic", "b-gym"}


def test_a_name_written_with_another_title_is_another_person_in_any_order() -> None:
    vet = [
        fact(
            1,
            "Dr Ruth Varley stitched the collie's paw at the clinic.",
            ("Dr Ruth Varley", "person"),
        ),
        fact(
            9,
            "Dr Varley wants every nurse through the radiography refresher.",
            ("Dr Varley", "person"),
        ),
        fact(30, "Ruth Varley is back from leave with a cold.", ("Ruth Varley", "person")),
    ]
    principal = [
        fact(
            12, "Mrs Varley asked for a talk to the Year 4s about pets.", ("Mrs Varley", "person")
        ),
        fact(40, "Mrs Varley sent a thank-you card from the school.", ("Mrs Varley", "person")),
    ]
    facts = vet + principal
    two = {
        frozenset(f"{f.memory_id}:{f.mentions[0].text}" for f in vet),
        frozenset(f"{f.memory_id}:{f.mentions[0].text}" for f in principal),
    }
    assert retained(facts) == two == retained(facts[::-1])


def test_a_town_and_the_lake_named_after_it_stay_two_places_in_any_order() -> None:
    # The settle decides one-word names after longer ones: "Tarrow" must not be read as a
    # short form of "Lake Tarrow" there, or the town joins the lake they share company with.
    town = [
        fact(
            1, "Ines Moro moved to Tarrow for work.", ("Ines Moro", "person"), ("Tarrow", "place")
        ),
        fact(20, "Ines Moro found a flat in Tarrow.", ("Ines Moro", "person"), ("Tarrow", "place")),
    ]
    lake = [
        fact(
            5,
            "Ines Moro sails on Lake Tarrow.",
            ("Ines Moro", "person"),
            ("Lake Tarrow", "place"),
        ),
        fact(30, "Lake Tarrow froze over.", ("Lake Tarrow", "place")),
    ]
    facts = town + lake
    two = {
        frozenset(f"{f.memory_id}:{f.mentions[-1].text}" for f in town),
        frozenset(f"{f.memory_id}:{f.mentions[-1].text}" for f in lake),
    }

    def places(parts: set[frozenset[str]]) -> set[frozenset[str]]:
        return {part for part in parts if any("Tarrow" in slot for slot in part)}

    assert places(retained(facts)) == two == places(retained(facts[::-1]))


def test_what_a_bare_name_is_about_weighs_the_same_whatever_else_its_settle_replays() -> None:
    # One settle may cover the writes of two seconds (decision 0018), so its block can hold
    # facts that have nothing to do with a name. Words they happen to share ("heat") must not
    # change what the name's own facts say: the bare "Nadine" of the heat gun is the one who
    # lent it, whether or not three dispatch notes about heat orders are replayed beside her.
    def settle_fact(
        memory_id: str, day: tuple[int, int], content: str, *names: tuple[str, str]
    ) -> SettleFact:
        mentions = tuple(
            SettleMention(text=text, entity_id=entity_id, type="person")
            for text, entity_id in names
        )
        at = datetime(2038, *day, 9, tzinfo=UTC)
        return SettleFact(memory_id=memory_id, at=at, content=content, mentions=mentions)

    nadine = [
        settle_fact(*row)
        for row in (
            (
                "n1",
                (2, 19),
                "Dad's physio is Nadine Beaulieu at the health centre; she wants him doing chair"
                " stands twice a day.",
                ("Nadine Beaulieu", "e-beaulieu"),
            ),
            (
                "n2",
                (3, 10),
                "Nadine Okemow, whose sloop sits in the next cradle at the marina, lent me her"
                " heat gun for the old paint.",
                ("Nadine Okemow", "e-okemow"),
            ),
            (
                "n3",
                (3, 17),
                "Nadine says Dad's balance improved and she wants him walking to the shop daily.",
                ("Nadine", "e-n3"),
            ),
            (
                "n4",
                (5, 10),
                "Nadine and I turned the floor boards in the shed; her heat gun is in my toolbox.",
                ("Nadine", "e-n4"),
            ),
            (
                "n5",
                (7, 28),
                "Nadine raised Dad's walker and added a set of exercises for his hips.",
                ("Nadine", "e-beaulieu"),
            ),
        )
    ]
    dispatch = [
        settle_fact(memory_id, day, content, (name, f"e-{name}"))
        for memory_id, day, content, name in (
            ("d1", (7, 17), "Back on the desk. Tevita has three heat slow orders out.", "Tevita"),
            ("d2", (7, 20), "Sylvie asked for a summary of every heat slow order.", "Sylvie"),
            (
                "d3",
                (7, 22),
                "Our chief dispatcher, Montgomery Hrabko, wants the heat slow orders reviewed.",
                "Montgomery Hrabko",
            ),
        )
    ]

    def holder_of_n4(facts: list[SettleFact]) -> str:
        free = {m.entity_id for f in facts for m in f.mentions}
        targets = replay(facts, free, [], {}, bank_entities=len(free)).targets
        return (
            "okemow"
            if targets[("n4", "e-n4", "Nadine")] == targets[("n2", "e-okemow", "Nadine Okemow")]
            else "none"
        )

    assert holder_of_n4(nadine) == "okemow"
    assert holder_of_n4(nadine + dispatch) == "okemow"


def test_a_nickname_stated_in_a_later_sentence_of_the_same_note_is_known_to_every_use() -> None:
    # One note of two sentences, so one moment: a replay orders its facts by text, and "Every
    # evening Rory ..." sorts before the sentence that says who Rory is. Local extraction
    # guessed the full name an organisation and the nickname a person.
    at = datetime(2025, 1, 28, 17, 30, tzinfo=UTC)

    def settle_fact(
        memory_id: str, when: datetime, content: str, *names: tuple[str, str, str]
    ) -> SettleFact:
        mentions = tuple(
            SettleMention(text=text, entity_id=entity_id, type=kind, type_guessed=True)
            for text, entity_id, kind in names
        )
        return SettleFact(memory_id=memory_id, at=when, content=content, mentions=mentions)

    facts = [
        settle_fact(
            "s1",
            at,
            "Our neighbour Ruairí Fenwick, whom the whole street calls Rory, knocked for a ladder.",
            ("Ruairí Fenwick", "e1", "organization"),
            ("Rory", "e1", "organization"),
        ),
        settle_fact(
            "s2", at, "Every evening Rory mends a clock in his flat.", ("Rory", "e2", "person")
        ),
        settle_fact(
            "s3", at + timedelta(days=30), "Rory fixed our kitchen tap.", ("Rory", "e3", "person")
        ),
    ]
    result = replay(facts, {"e1", "e2", "e3"}, [], {}, bank_entities=3)
    slots = (("s2", "e2", "Rory"), ("s3", "e3", "Rory"), ("s1", "e1", "Ruairí Fenwick"))
    assert {result.targets[slot] for slot in slots} == {result.targets[slots[-1]]}
    assert result.reviews == ()


def test_an_entity_of_a_guessed_type_takes_the_firm_type_a_title_brings() -> None:
    # NER read the full name as a work of art; "Dr. Pham" is a person by its title, not by a
    # guess. Held as a work, the entity kept "Dr." as a word of its name, and the bare "Mai"
    # of a later note could not align with it.
    def settle_fact(
        memory_id: str, month: int, content: str, text: str, entity_id: str, kind: str
    ) -> SettleFact:
        guessed = kind == "work"
        mention = SettleMention(text=text, entity_id=entity_id, type=kind, type_guessed=guessed)
        at = datetime(2024, month, 1, tzinfo=UTC)
        return SettleFact(memory_id=memory_id, at=at, content=content, mentions=(mention,))

    facts = [
        settle_fact("a", 3, "Took her to Mai Pham's clinic.", "Mai Pham", "e1", "work"),
        *(
            settle_fact(f"d{i}", 4 + i, "Dr. Pham gave him a booster.", "Dr. Pham", "e1", "person")
            for i in range(3)
        ),
        settle_fact("b", 9, "Ran into Mai at the market.", "Mai", "e2", ""),
    ]
    targets = replay(facts, {"e1", "e2"}, [], {}, bank_entities=2).targets
    assert (
        targets[("b", "e2", "Mai")]
        == targets[("a", "e1", "Mai Pham")]
        == targets[("d0", "e1", "Dr. Pham")]
    )


def test_a_settle_parts_two_names_of_one_fact_that_a_first_pass_took_for_one_person():
    # Read first, "Piet Haldane … Dr. Haldane" is one person: nothing else is called so yet.
    # Once the doctor's own notes are in, the settle gives "Dr. Haldane" back to her, and the
    # order the notes came in makes no difference.
    clinic = ("Larchmont Clinic", "organization")
    notes = [
        fact(
            1,
            "Annual check-up with Dr. Miriam Haldane at the Larchmont Clinic.",
            ("Dr. Miriam Haldane", "person"),
            clinic,
        ),
        fact(
            20,
            "Dr. Haldane called back from the Larchmont Clinic about the blood test.",
            ("Dr. Haldane", "person"),
            clinic,
        ),
        fact(
            40,
            "Dr. Haldane renewed my prescription at the Larchmont Clinic.",
            ("Dr. Haldane", "person"),
            clinic,
        ),
        fact(30, "Piet Haldane resurfaced the rink.", ("Piet Haldane", "person")),
        fact(60, "Piet Haldane lent us his snow blower.", ("Piet Haldane", "person")),
        fact(
            90,
            "Piet Haldane found me an ice pack, and Dr. Haldane cleared me for work.",
            ("Piet Haldane", "person"),
            ("Dr. Haldane", "person"),
        ),
    ]
    doctor = frozenset(
        {"m001:Dr. Miriam Haldane", "m020:Dr. Haldane", "m040:Dr. Haldane", "m090:Dr. Haldane"}
    )
    piet = frozenset({"m030:Piet Haldane", "m060:Piet Haldane", "m090:Piet Haldane"})
    ordered = sorted(notes, key=lambda f: f.at)
    for order in (ordered, ordered[::-1]):
        identities = retained(order)
        assert doctor in identities and piet in identities


def test_plan_moves_only_the_surfaces_of_a_fact_that_the_replay_parted():
    targets = {
        ("m1", "a", "Piet Haldane"): "settle-0001",
        ("m1", "a", "Dr. Haldane"): "settle-0002",
        ("m2", "a", "Piet Haldane"): "settle-0001",
        ("m3", "a", "Dr. Haldane"): "settle-0002",
        ("m4", "d", "Dr. Haldane"): "settle-0002",
        ("m5", "d", "Dr. Haldane"): "settle-0002",
    }
    (split,) = plan(targets, {"a": T0, "d": T0}).splits
    assert (split.entity_id, split.memory_ids) == ("a", ("m1", "m3"))
    assert split.surfaces == {"m1": ("Dr. Haldane",)}


def test_a_bare_name_given_to_someone_met_everywhere_is_settled_apart_when_a_namesake_comes():
    # Odile Marchetti is named beside every other entity of a small bank: a hub. A bare
    # "Odile" with one holder in sight joins her; once a second Odile arrives it fits two,
    # and the settle must undo the guess in any order, however central the first holder.
    places = ["Harbour Road", "Kestrel Bakery", "Linden Library", "Quarry Pool", "Mossgiel Farm"]
    places += ["Tarn Gallery", "Brook Market", "Fennel Cafe", "Orchard Hall", "Pike Station"]
    notes = [
        fact(
            day,
            f"Odile Marchetti went to {place} with her sister.",
            ("Odile Marchetti", "person"),
            (place, "place"),
        )
        for day, place in enumerate(places, start=1)
    ]
    notes += [
        fact(12, "Odile called in the evening.", ("Odile", "person")),
        fact(20, "Odile Brandvold repairs clocks.", ("Odile Brandvold", "person")),
        fact(21, "Odile Brandvold sold a clock.", ("Odile Brandvold", "person")),
    ]
    bank = MemoryBank()
    for note in notes[:11]:
        bank.retain(note)
    ws = bank.working_set()
    hub = next(e for e in ws.entities.values() if "odile marchetti" in e.names)
    assert hub.degree >= hub_degree(ws.bank_entities, DEFAULT_POLICY)
    forward, reverse = retained(notes), retained(notes[::-1])
    assert forward == reverse
    assert frozenset({"m012:Odile"}) in forward


def test_a_settle_replays_a_hub_with_few_mentions_but_does_not_take_its_company():
    bank = MemoryBank(settle=False)
    places = [f"Stop {chr(65 + i)}" for i in range(12)]
    for day, place in enumerate(places, start=1):
        bank.retain(
            fact(day, f"Ines Varga drove to {place}.", ("Ines Varga", "person"), (place, "place"))
        )
    ws = bank.working_set()
    ines = bank.facts[0].mentions[0].entity_id
    free, anchored = split_block([ws.entities[ines]], pinned=set())
    assert (free, anchored) == ({ines}, set())
    assert block_of(ws, [("ines varga", "person")], [ines]) == {ines}


def test_a_short_name_a_fact_names_beside_its_full_form_as_someone_else_is_held_by_two():
    # Once the text names two Gretas side by side, a bare "Greta" with nothing else said may
    # be either: it joins neither, in any order, instead of the one first met.
    facts = [
        fact(10, "Greta Holm lent us her ladder.", ("Greta Holm", "person")),
        fact(20, "Greta lost her first tooth.", ("Greta", "person")),
        fact(
            40,
            "After dinner little Greta showed Greta Holm the kite she built.",
            ("Greta", "person"),
            ("Greta Holm", "person"),
        ),
    ]
    for order in (facts, facts[::-1]):
        identities = retained(order)
        holm = next(g for g in identities if "m010:Greta Holm" in g)
        assert holm == {"m010:Greta Holm", "m040:Greta Holm"}
        assert not any({"m040:Greta", "m040:Greta Holm"} <= g for g in identities)
    # Without the fact that names two, the bare name joins its only holder, as before.
    assert retained(facts[:2]) == {frozenset({"m010:Greta Holm", "m020:Greta"})}


def test_a_full_settle_frees_a_names_holders_together_the_writes_own_first() -> None:
    # Two holders of one name, 30 and 25 mentions, in a block whose small entities fill most
    # of what a settle replays: freeing the smallest first kept one holder fixed while the
    # other was replayed against it, reading only its own facts. Both are freed or neither,
    # and the family the writes touched comes before the block's small company.
    at = datetime(2026, 1, 1, tzinfo=UTC)

    def entity(eid: str, name: str, mentions: int) -> WorkingEntity:
        return WorkingEntity(eid, name, "person", at, at, names={name: False}, mentions=mentions)

    holders = [entity("h1", "wen harlow", 30), entity("h2", "wen harlow", 25)]
    company = [entity(f"c{n:02d}", f"person {n}", 20) for n in range(18)]
    block = holders + company
    free, anchored = split_block(block, pinned=set(), touched={"h2"})
    assert {"h1", "h2"} <= free
    assert len(free) + len(anchored) == len(block)
    # Untouched, the holders are the largest family and wait for room, both of them.
    free, anchored = split_block(block, pinned=set())
    assert {"h1", "h2"} <= anchored
    assert sum(e.mentions for e in block if e.id in free) <= MAX_SETTLE_FACTS
