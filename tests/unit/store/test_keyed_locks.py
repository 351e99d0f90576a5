import asyncio

from app.store.graph import KeyedLocks


async def test_writers_of_one_bank_take_turns_and_other_banks_do_not_wait():
    locks = KeyedLocks()
    events: list[str] = []

    async def write(bank: str, name: str, seconds: float) -> None:
        async with locks.hold(bank):
            events.append(f"{name} in")
            await asyncio.sleep(seconds)
            events.append(f"{name} out")

    await asyncio.gather(write("a", "first", 0.05), write("a", "second", 0), write("b", "other", 0))
    assert events.index("second in") > events.index("first out")
    assert events.index("other out") < events.index("first out")
