"""The consolidation worker: banks' due facts, in order, in batches, one worker per bank at a time.

The loop (inside ``mnemo serve`` by default, or as ``mnemo worker``) asks Neo4j which banks have
facts due and a free lease, claims one bank's lease (``ConsolidationLease``: owner and expiry,
renewed before each batch), and consolidates that bank's batches until nothing is due or its
time slice ends; then it gives the lease back and moves on. Any number of processes can run the
loop against one Neo4j: a bank is consolidated by one of them at a time, every write checks
that its worker still holds the lease, and a dead worker's lease expires. Consolidation runs
behind retain: after a batch during which clients wrote to the graph, the worker pauses for as
long as the batch took times ``yield_factor``, so its share of the machine shrinks while clients
are busy and it catches up when they are not.

A batch that breaks unexpectedly fails its facts (they are retried with backoff, never lost);
when it held several facts, they are first tried one by one, so only the one that breaks fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Collection
from datetime import UTC, datetime, timedelta

import msgspec

from app.consolidate.service import BatchOutcome, Consolidator, LeaseLost
from app.domain.events import EventSink, NoEvents
from app.errors import NotFound
from app.store.background import stop_tasks
from app.store.graph import Graph, Tx

log = logging.getLogger(__name__)

# What runs after a bank's consolidation: the bank and the memory ids the runs touched.
AfterRun = Callable[[str, Collection[str]], Awaitable[object]]


class WorkerSettings(msgspec.Struct, frozen=True, kw_only=True):
    """How the worker paces itself (``MNEMO_CONSOLIDATION_*``)."""

    batch_size: int = 64
    # While a bank's batches come back full (a backlog), each next one is twice as large, up to
    # this: what every batch pays whatever its size (lease, due read, waiting for the bank's
    # writers, snapshot, the statements' round trips) is then spread over more facts, so the
    # worker outpaces retain. Its write stays short (~0.3 ms a fact) beside a retain's.
    max_batch_size: int = 256
    poll_s: float = 1.0
    lease_s: float = 60.0
    # One bank at most this long before the worker looks at the others again.
    slice_s: float = 10.0
    # After a batch during which clients wrote, pause for the batch's working time (not the
    # time it waited for the clients' writes) times this: a tenth of the time. A fact
    # consolidated beside retain's writes costs about twice what it costs after them, and a
    # larger share did not keep up with a bulk write anyway (decision 0053).
    yield_factor: float = 9.0


class _Tally(msgspec.Struct, kw_only=True):
    """What a worker did in a bank since it was last idle (one ``consolidation.completed``)."""

    done: int = 0
    failed: int = 0
    created: int = 0
    updated: int = 0
    deleted: int = 0
    errors: set[str] = msgspec.field(default_factory=set)
    touched: set[str] = msgspec.field(default_factory=set)

    def add(self, outcome: BatchOutcome) -> None:
        self.done += outcome.done
        self.failed += outcome.failed
        self.created += outcome.created
        self.updated += outcome.updated
        self.deleted += outcome.deleted
        self.errors.update(outcome.errors)
        self.touched.update(outcome.touched)


class ConsolidationWorker:
    """Runs consolidation in the background of a process (see the module docstring).

    When a bank has nothing left due, its queued runs are completed and ``consolidation.completed``
    goes to ``events`` (webhooks) with what was done since the bank was last idle, if anything was.
    """

    def __init__(
        self,
        graph: Graph,
        consolidator: Consolidator,
        settings: WorkerSettings | None = None,
        *,
        owner: str | None = None,
        events: EventSink | None = None,
    ) -> None:
        self._graph = graph
        self._consolidator = consolidator
        self._events: EventSink = events or NoEvents()
        # Per bank, across time slices: a bank drained over several slices is one event.
        self._tallies: dict[str, _Tally] = {}
        self.settings = settings or WorkerSettings()
        self.owner = owner or f"worker-{uuid.uuid4()}"
        self._task: asyncio.Task[None] | None = None
        self._wake = asyncio.Event()
        self._after_run: list[AfterRun] = []

    def after_run(self, hook: AfterRun) -> None:
        """Call ``hook(bank_id, touched memory ids)`` when a bank has nothing left to consolidate.

        The service registers mental-model refreshes here; a ``mnemo worker`` process does not,
        as it runs no operations (the refreshes it would queue would wait for a service start).
        """
        self._after_run.append(hook)

    async def start(self) -> None:
        """Start the loop in the background."""
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="mnemo-consolidation")

    async def stop(self) -> None:
        """Stop the loop; the lease it holds expires (or is given back when it was idle)."""
        if self._task is not None:
            await stop_tasks([self._task])
            self._task = None

    @property
    def running(self) -> bool:
        """Whether the loop runs in the background."""
        return self._task is not None

    def nudge(self) -> None:
        """Look for due facts now instead of at the next poll."""
        self._wake.set()

    async def run_until_idle(self, timeout_s: float = 60.0) -> int:
        """Work until no bank has anything due (tests, one-shot runs); returns facts handled."""
        total = 0
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            worked = await self.run_once()
            if worked == 0:
                return total
            total += worked
        return total

    async def run_once(self) -> int:
        """One pass over the banks that have facts due; returns how many facts were handled."""
        now = datetime.now(UTC)
        rows = await self._graph.run("consolidate/due_banks", {"owner": self.owner, "now": now})
        handled = 0
        for row in rows:
            bank_id = row["bank_id"]
            if not await self._consolidator.serves(bank_id) or not await self.claim(bank_id):
                continue
            try:
                handled += await self._drain(bank_id)
            except LeaseLost:
                log.info("bank %s: another worker took the consolidation lease", bank_id)
            finally:
                await self.release(bank_id)
        return handled

    async def _loop(self) -> None:
        while True:
            try:
                worked = await self.run_once()
            except asyncio.CancelledError:
                raise
            except Exception:  # the loop must outlive any one failure (Neo4j restarting, ...)
                log.exception("consolidation pass failed; trying again after the poll interval")
                worked = 0
            if worked == 0:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.settings.poll_s)

    async def _drain(self, bank_id: str) -> int:
        """Consolidate one bank's batches until nothing is due or the time slice ends."""
        await self._graph.run("consolidate/start_operations", {"bank_id": bank_id})
        deadline = time.monotonic() + self.settings.slice_s
        handled = 0
        size = self.settings.batch_size
        tally = self._tallies.setdefault(bank_id, _Tally())
        # Observations a crash or the cascade left without their vector get it now.
        await self._consolidator.publish_vectors(bank_id)
        while True:
            if not await self.claim(bank_id):
                raise LeaseLost(bank_id)
            clients = self._graph.foreground_writes
            started, waited = time.monotonic(), self._graph.background_wait_s
            outcome = await self._batch(bank_id, size)
            if outcome.created or outcome.updated or outcome.deleted:
                await self._consolidator.publish_vectors(bank_id)
            handled += outcome.done + outcome.failed
            tally.add(outcome)
            if outcome.facts == 0:
                await self._finish(bank_id, tally)
                del self._tallies[bank_id]
                return handled
            if time.monotonic() > deadline:
                return handled
            largest = max(self.settings.max_batch_size, self.settings.batch_size)
            full = outcome.facts >= size and not outcome.stale
            size = min(size * 2, largest) if full else self.settings.batch_size
            if self._graph.foreground_writes != clients:
                worked = time.monotonic() - started - (self._graph.background_wait_s - waited)
                await asyncio.sleep(max(worked, 0.0) * self.settings.yield_factor)

    async def _batch(self, bank_id: str, size: int) -> BatchOutcome:
        try:
            return await self._consolidator.run_batch(bank_id, self.owner, size)
        except (LeaseLost, asyncio.CancelledError):
            raise
        except NotFound:
            # The bank was deleted after its facts were found due: nothing of it is left to
            # consolidate, and its facts went with it (none to fail one by one).
            log.info("bank %s was deleted; its consolidation stops", bank_id)
            return BatchOutcome()
        except Exception as exc:
            log.exception("a consolidation batch of bank %s failed", bank_id)
            error = f"internal error ({type(exc).__name__}); see the service log"
        # One by one: only the fact that breaks fails (each failure makes the next one due).
        outcome = BatchOutcome()
        for _ in range(size if size > 1 else 0):
            try:
                single = await self._consolidator.run_batch(bank_id, self.owner, 1)
            except (LeaseLost, asyncio.CancelledError):
                raise
            except Exception:
                log.exception("consolidating one fact of bank %s failed", bank_id)
                outcome.failed += await self._consolidator.fail_batch(bank_id, 1, error)
                outcome.facts += 1
                continue
            if single.facts == 0:
                break
            outcome.facts += single.facts
            outcome.done += single.done
            outcome.failed += single.failed
            outcome.errors += single.errors
        if size <= 1:
            outcome.failed += await self._consolidator.fail_batch(bank_id, 1, error)
            outcome.facts += 1
        outcome.errors.append(error)
        return outcome

    async def claim(self, bank_id: str) -> bool:
        """Claim (or renew) the bank's lease; False when another live worker holds it."""
        now = datetime.now(UTC)
        until = now + timedelta(seconds=self.settings.lease_s)

        async def work(tx: Tx) -> bool:
            rows = await tx.run(
                "consolidate/claim",
                {"bank_id": bank_id, "owner": self.owner, "now": now, "until": until},
            )
            return bool(rows) and rows[0]["owner"] == self.owner

        return await self._graph.write(bank_id, work, exclusive=False, background=True)

    async def release(self, bank_id: str) -> None:
        """Give the bank's lease back (if this worker holds it)."""
        with contextlib.suppress(Exception):
            await self._graph.run("consolidate/release", {"bank_id": bank_id, "owner": self.owner})

    async def _finish(self, bank_id: str, tally: _Tally) -> None:
        errors = sorted(tally.errors)
        rows = await self._graph.run(
            "consolidate/finish_operations",
            {
                "bank_id": bank_id,
                "done": tally.done,
                "errors_json": (
                    msgspec.json.encode([{"index": -1, "error": e} for e in errors]).decode()
                    if errors
                    else None
                ),
                "warnings": [],
            },
        )
        operation_ids: list[str] = sorted(rows[0]["operation_ids"]) if rows else []
        if operation_ids or tally.done or tally.failed:
            self._events.emit(
                bank_id, "consolidation.completed", completed_event(operation_ids, tally)
            )
        if tally.touched:
            for hook in self._after_run:
                try:
                    await hook(bank_id, tally.touched)
                except Exception:
                    # A hook's failure (a mental model that cannot be queued) must not fail the
                    # consolidation that already committed.
                    log.exception("after-consolidation hook of bank %s failed", bank_id)


def completed_event(operation_ids: list[str], tally: _Tally) -> dict[str, object]:
    """``consolidation.completed`` data: the runs completed and what consolidation did."""
    return {
        "operation_id": operation_ids[-1] if operation_ids else None,
        "operation_ids": operation_ids,
        "status": "completed",
        "memories_processed": tally.done + tally.failed,
        "memories_consolidated": tally.done,
        "memories_failed": tally.failed,
        "observations_created": tally.created,
        "observations_updated": tally.updated,
        "observations_deleted": tally.deleted,
        "errors": sorted(tally.errors),
    }
