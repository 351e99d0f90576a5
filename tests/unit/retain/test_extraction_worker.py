"""Local extraction in a worker process: the same facts as in the service, and it recovers."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest

from app.errors import Unavailable
from app.retain.extract.extracted import ExtractionInput
from app.retain.extract.local import DEFAULT_SPACY_MODEL, LocalExtractor
from app.retain.extract.port import ExtractionSettings, ProcessExtraction

LOCAL = ExtractionSettings(mode="local")
CHUNKS = [
    ExtractionInput(
        text="Priya Raman joined Acme Robotics in Lisbon yesterday. She leads Project Atlas.",
        timestamp=datetime(2024, 3, 1, 9, 0, tzinfo=UTC),
    ),
    ExtractionInput(text="Caroline: I went to the LGBTQ support group yesterday."),
]


async def test_worker_extracts_what_the_service_would() -> None:
    worker = await ProcessExtraction.start(DEFAULT_SPACY_MODEL)
    try:
        assert await worker.pid() != os.getpid()
        assert await worker.extract(CHUNKS, LOCAL) == LocalExtractor.load().extract_many(CHUNKS)
        assert await worker.extract([], LOCAL) == []
    finally:
        await worker.close()


async def test_a_killed_worker_is_replaced() -> None:
    worker = await ProcessExtraction.start(DEFAULT_SPACY_MODEL)
    try:
        first = await worker.pid()
        others = set(_workers()) - {first}  # the test server's worker, say
        os.kill(first, signal.SIGKILL)
        # Two batches in flight both see it die; one new worker serves both.
        both = await asyncio.gather(worker.extract(CHUNKS, LOCAL), worker.extract(CHUNKS, LOCAL))
        for results in both:
            assert [r.facts[0].text for r in results] == [
                "Priya Raman joined Acme Robotics in Lisbon yesterday.",
                "Caroline: I went to the LGBTQ support group yesterday.",
            ]
        now = await worker.pid()
        assert now != first
        assert set(_workers()) - others == {now}
    finally:
        await worker.close()


async def test_unknown_model_fails_the_start_with_its_name() -> None:
    with pytest.raises(Unavailable, match="no_such_model_xyz"):
        await ProcessExtraction.start("no_such_model_xyz")


ORPHANING_SERVICE = f"""
import asyncio, os
from app.retain.extract.port import ProcessExtraction

async def main():
    worker = await ProcessExtraction.start({DEFAULT_SPACY_MODEL!r})
    print(await worker.pid(), flush=True)
    os._exit(0)  # dies the way a crashed or killed service does: no shutdown

asyncio.run(main())
"""


def _stat(pid: int) -> list[str] | None:
    """A process's state, parent and the rest from /proc (None: it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ")[1].split()
    except OSError:
        return None


def _alive(pid: int) -> bool:
    # A zombie (not yet reaped by init) is gone as far as work and memory go.
    fields = _stat(pid)
    return fields is not None and fields[0] != "Z"


def test_the_worker_exits_when_the_service_dies_without_closing_it() -> None:
    done = subprocess.run(
        [sys.executable, "-c", ORPHANING_SERVICE], capture_output=True, text=True, timeout=120
    )
    worker = int(done.stdout.split()[0])
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not _alive(worker)


def _workers() -> list[int]:
    """Live spawned children of this process."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        fields = _stat(int(entry))
        if fields is None or fields[0] == "Z" or int(fields[1]) != os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                if b"spawn_main" in cmdline.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found
