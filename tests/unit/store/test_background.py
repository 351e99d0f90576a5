"""A stop stops: a background task that loses a cancellation, or will not end, does not hold up
the service's shutdown."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest

from app.store import background
from app.store.background import finish_within, stop_tasks


async def _loses_one_cancellation(started: asyncio.Event) -> None:
    # What a loop does when ``asyncio.wait_for`` returns its result instead of the
    # cancellation that arrived with it: it goes on.
    lost = False
    while True:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            if lost:
                raise
            lost = True


async def _ignores_cancellation(released: asyncio.Event) -> None:
    while not released.is_set():
        with contextlib.suppress(asyncio.CancelledError):
            await released.wait()


async def test_a_task_that_lost_its_cancellation_is_stopped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(background, "RECANCEL_S", 0.05)
    started = asyncio.Event()
    task = asyncio.create_task(_loses_one_cancellation(started))
    await started.wait()
    await asyncio.wait_for(stop_tasks([task], timeout_s=5), 2)
    assert task.cancelled()


async def test_a_task_that_will_not_end_is_left_and_its_place_logged(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(background, "RECANCEL_S", 0.05)
    released = asyncio.Event()
    task = asyncio.create_task(_ignores_cancellation(released), name="stubborn-loop")
    await asyncio.sleep(0)
    with caplog.at_level(logging.WARNING, logger=background.__name__):
        await asyncio.wait_for(stop_tasks([task], timeout_s=0.3), 2)
    assert not task.done()
    assert "stubborn-loop did not stop" in caplog.text
    assert "_ignores_cancellation" in caplog.text  # where it waits
    released.set()
    await task


async def test_a_failed_task_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    async def fails() -> None:
        raise RuntimeError("pinger broke")

    task = asyncio.create_task(fails(), name="pinger")
    await asyncio.sleep(0)
    with caplog.at_level(logging.ERROR, logger=background.__name__):
        await stop_tasks([task])
    assert "pinger had failed" in caplog.text
    assert "pinger broke" in caplog.text


async def test_work_at_shutdown_finishes_when_it_can() -> None:
    finished = []

    async def publish() -> None:
        await asyncio.sleep(0.05)
        finished.append(True)

    await finish_within(publish, name="publish", timeout_s=5)
    assert finished == [True]


async def test_work_at_shutdown_is_given_up_after_its_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def hangs() -> None:
        await asyncio.Event().wait()

    with caplog.at_level(logging.WARNING, logger=background.__name__):
        await asyncio.wait_for(finish_within(hangs, name="settle", timeout_s=0.2), 5)
    assert "settle did not finish" in caplog.text
