#!/usr/bin/env python3
"""Retain at an agent's pace: many writers sending small requests while others recall, over HTTP.

Starts the service (``mnemo serve`` in a subprocess, on loopback, with a temporary data
directory; ``--url`` uses a running one instead), fills each bank to ``--bank-facts`` facts in
100-item batches, then measures:

1. the baseline: ``--baseline-clients`` clients sending 100-item batches into the first bank
   for ``--baseline-seconds`` (facts/s), in the same run as what follows;
2. each scenario ``WxK@B+R``: W writer clients sending K-item requests, spread over B banks,
   while R clients recall from those banks, for ``--duration`` seconds or
   ``--max-requests`` requests, whichever ends first. It prints facts/s (and its ratio to the
   baseline), retain and recall p50/p95 and the errors.

Afterwards it checks what the scenarios sent, through the API: every item of an answered
request is stored with exactly the facts its answer named (nothing lost, nothing doubled),
every one of those facts is found by recall (its vector and links are published), and every
shared name — new names that several writers use at once — is one entity in each bank. The
exit status is 1 when a check fails.

Items are notes like ``bench_retain``'s (recurring people, places, organisations, dates), one
to three sentences each, in ``local`` mode; a third of them also name one of a few people new
to the bank, whom every writer of the bank mentions.

    .venv/bin/python scripts/bench_load.py        # 1x1@1+0, 8x1@1+2, 32x1@8+2; 10k-fact banks
    .venv/bin/python scripts/bench_load.py --scenarios 8x1@1+2 --duration 20
    .venv/bin/python scripts/bench_load.py --bank-facts 200 --baseline-seconds 3 \\
        --scenarios 2x1@1+1,4x2@2+0 --duration 3                                 # CI size

``--data-dir DIR`` keeps the service's data (and the filled banks) for the next run, against
the same Neo4j; ``--server-env MNEMO_X=Y`` passes settings to the service it starts.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.curate.schemas.banks import Bank, BankUpdate  # noqa: E402
from app.curate.schemas.entities import EntityPage  # noqa: E402
from app.curate.schemas.memories import MemoryPage  # noqa: E402
from app.embedded import free_port  # noqa: E402
from app.recall.schemas import RecallRequest, RecallResponse  # noqa: E402
from app.retain.schemas import EntityHint, RetainItem, RetainRequest, RetainResponse  # noqa: E402
from scripts.bench_retain import ORGS, PLACES, PROJECTS, TEMPLATES, notes, people  # noqa: E402
from scripts.bench_support import benchmark_neo4j_auth, benchmark_neo4j_uri  # noqa: E402

BATCH = 100
FILL_CLIENTS = 3
PAGE = 1000
# New people per bank that every writer of the bank names: concurrent requests introduce them.
SHARED_PEOPLE = 6
NEW_FIRST = ["Anouk", "Bruno", "Cyrus", "Dalia", "Emeka", "Farah", "Gideon", "Ilse", "Jarek"]
NEW_LAST = ["Achterberg", "Bellweather", "Cavanagh", "Drummond", "Eskildsen", "Fairbanks"]
JSON = {"content-type": "application/json"}
SERVICE_START_S = 300.0
# The scenarios' agents talk after everything the banks were filled with.
LOAD_START = datetime(2026, 1, 1, tzinfo=UTC)


class Scenario(msgspec.Struct, frozen=True):
    """W writers sending K-item requests over B banks while R clients recall."""

    writers: int
    items: int
    banks: int
    readers: int

    @classmethod
    def parse(cls, text: str) -> Scenario:
        """``WxK@B+R``: e.g. ``8x1@1+2``."""
        try:
            head, readers = text.split("+") if "+" in text else (text, "0")
            shape, banks = head.split("@") if "@" in head else (head, "1")
            writers, items = shape.split("x")
            scenario = cls(int(writers), int(items), int(banks), int(readers))
        except ValueError as exc:
            raise SystemExit(f"bad scenario {text!r}: expected WxK@B+R, e.g. 8x1@1+2") from exc
        if min(scenario.writers, scenario.items, scenario.banks) < 1 or scenario.readers < 0:
            raise SystemExit(f"bad scenario {text!r}: counts must be positive")
        return scenario

    @property
    def label(self) -> str:
        """The scenario as written on the command line."""
        return f"{self.writers}x{self.items}@{self.banks}+{self.readers}"


class Sent(msgspec.Struct, frozen=True):
    """One item of an answered retain request: where it went and the facts its answer named."""

    bank_id: str
    document_id: str
    memory_ids: tuple[str, ...]


class Measured(msgspec.Struct, kw_only=True):
    """What one scenario measured."""

    requests: int = 0
    facts: int = 0
    seconds: float = 0.0
    retain_ms: list[float] = msgspec.field(default_factory=list)
    recall_ms: list[float] = msgspec.field(default_factory=list)
    errors: list[str] = msgspec.field(default_factory=list)
    sent: list[Sent] = msgspec.field(default_factory=list)

    @property
    def facts_per_s(self) -> float:
        """Retained facts per second over the scenario."""
        return self.facts / self.seconds if self.seconds else 0.0


def percentile(values: Sequence[float], q: float) -> float:
    """The nearest-rank percentile (0 for no values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def shared_people(seed: int) -> list[str]:
    """New names for one run: people the filled banks have never heard of."""
    rng = random.Random(seed)
    names = sorted({f"{rng.choice(NEW_FIRST)} {rng.choice(NEW_LAST)}" for _ in range(40)})
    rng.shuffle(names)
    return names[:SHARED_PEOPLE]


def turns(seed: int, start: datetime, shared: Sequence[str], tag: str) -> Iterator[RetainItem]:
    """Notes of one writer: known people, places and projects, and now and then a new person."""
    rng = random.Random(seed)
    cast = people(random.Random(7), 150)  # bench_retain's cast, which filled the banks
    when = start
    while True:
        when += timedelta(minutes=rng.randint(1, 30))
        sentences = []
        for _ in range(rng.choice((1, 1, 2, 3))):
            day = when - timedelta(days=rng.randint(0, 30))
            newcomer = rng.random() < 0.33
            sentences.append(
                rng.choice(TEMPLATES).format(
                    p1=rng.choice(shared) if newcomer else rng.choice(cast),
                    p2=rng.choice(cast),
                    place=rng.choice(PLACES),
                    org=rng.choice(ORGS),
                    project=rng.choice(PROJECTS),
                    date=day.strftime("%d %B %Y"),
                    month=day.strftime("%B %Y"),
                    year=rng.randint(2005, 2022),
                )
            )
        text = " ".join(sentences)
        hints = [EntityHint(text=n, type="person") for n in [*cast, *shared] if n in text]
        yield RetainItem(content=text, timestamp=when, entities=hints or None, tags=[tag])


# -- the service --------------------------------------------------------------------------------


@contextlib.contextmanager
def service(neo4j_uri: str, data_dir: str, extra_env: Sequence[str]) -> Iterator[str]:
    """``mnemo serve`` in a subprocess on a free loopback port; yields its base URL."""
    port = free_port()
    env = {
        **os.environ,
        "MNEMO_DATA_DIR": data_dir,
        "MNEMO_NEO4J_URI": neo4j_uri,
        "MNEMO_HOST": "127.0.0.1",
        "MNEMO_PORT": str(port),
        "MNEMO_LOG_LEVEL": "warning",
        # The test Neo4j's generated credentials (or the ones given in the environment).
        **{f"MNEMO_{k.upper()}": v for k, v in benchmark_neo4j_auth().items()},
    }
    for pair in extra_env:
        name, _, value = pair.partition("=")
        env[name] = value
    log_path = Path(data_dir) / "service.log"
    with log_path.open("ab") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "serve"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVICE_START_S
        while True:
            if proc.poll() is not None:
                raise SystemExit(f"the service exited at start; see {log_path}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/health/ready", timeout=5).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise SystemExit(f"the service did not become ready; see {log_path}")
            time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.asynccontextmanager
async def http_client(url: str, connections: int) -> AsyncIterator[httpx.AsyncClient]:
    """One pooled client for every simulated agent (a connection each)."""
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    async with httpx.AsyncClient(base_url=url, timeout=300.0, limits=limits) as client:
        yield client


async def retain(
    client: httpx.AsyncClient, bank_id: str, items: Sequence[RetainItem]
) -> RetainResponse:
    """One retain request; raises on any status but 200."""
    body = msgspec.json.encode(RetainRequest(items=list(items)))
    response = await client.post(
        f"/v1/default/banks/{bank_id}/memories", content=body, headers=JSON
    )
    if response.status_code != 200:
        raise RuntimeError(f"retain answered {response.status_code}: {response.text[:300]}")
    return msgspec.json.decode(response.content, type=RetainResponse)


async def recall(client: httpx.AsyncClient, bank_id: str, request: RecallRequest) -> RecallResponse:
    """One recall request; raises on any status but 200."""
    body = msgspec.json.encode(request)
    response = await client.post(
        f"/v1/default/banks/{bank_id}/memories/recall", content=body, headers=JSON
    )
    if response.status_code != 200:
        raise RuntimeError(f"recall answered {response.status_code}: {response.text[:300]}")
    return msgspec.json.decode(response.content, type=RecallResponse)


async def bank_facts(client: httpx.AsyncClient, bank_id: str) -> int | None:
    """How many facts a bank holds (None: no such bank)."""
    response = await client.get(f"/v1/default/banks/{bank_id}")
    if response.status_code == 404:
        return None
    response.raise_for_status()
    return msgspec.json.decode(response.content, type=Bank).counts.memories


# -- phases -------------------------------------------------------------------------------------


async def fill(client: httpx.AsyncClient, bank_id: str, facts: int, seed: int) -> None:
    """Create the bank (``local`` mode) and retain notes in batches until it holds ``facts``."""
    have = await bank_facts(client, bank_id)
    if have is None:
        body = msgspec.json.encode(BankUpdate(retain_extraction_mode="local"))
        created = await client.put(f"/v1/default/banks/{bank_id}", content=body, headers=JSON)
        created.raise_for_status()
        have = 0
    if have >= facts:
        print(f"bank {bank_id}: {have:,d} facts (kept from an earlier run)", flush=True)
        return
    stream = notes(seed=seed, start=datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=seed))
    started = time.perf_counter()
    total = have

    async def one_client() -> None:
        nonlocal total
        while total < facts:
            answer = await retain(client, bank_id, [next(stream) for _ in range(BATCH)])
            total += len(answer.memory_ids)

    await asyncio.gather(*(one_client() for _ in range(FILL_CLIENTS)))
    seconds = time.perf_counter() - started
    print(f"bank {bank_id}: filled to {total:,d} facts in {seconds:.0f} s", flush=True)


async def baseline(client: httpx.AsyncClient, bank_id: str, clients: int, seconds: float) -> float:
    """Facts/s of ``clients`` clients sending 100-item batches for ``seconds``."""
    stream = notes(seed=99, start=datetime(2025, 6, 1, tzinfo=UTC))
    deadline = time.perf_counter() + seconds
    facts = 0

    async def one_client() -> None:
        nonlocal facts
        while time.perf_counter() < deadline:
            answer = await retain(client, bank_id, [next(stream) for _ in range(BATCH)])
            facts += len(answer.memory_ids)

    started = time.perf_counter()
    await asyncio.gather(*(one_client() for _ in range(clients)))
    elapsed = time.perf_counter() - started
    rate = facts / elapsed
    print(
        f"baseline: {clients} clients x {BATCH}-item batches into {bank_id}: {facts:,d} facts "
        f"in {elapsed:.1f} s = {rate:.1f} facts/s",
        flush=True,
    )
    return rate


async def run_scenario(
    client: httpx.AsyncClient,
    scenario: Scenario,
    banks: Sequence[str],
    shared: dict[str, list[str]],
    *,
    seconds: float,
    max_requests: int,
    tag: str,
    seed: int,
    clock: datetime,
) -> Measured:
    """W writers and R readers at once, until the time or the request budget runs out."""
    measured = Measured()
    deadline = time.perf_counter() + seconds
    budget = max_requests
    writing = True
    queries = _queries(random.Random(seed), [n for names in shared.values() for n in names])

    async def writer(i: int) -> None:
        nonlocal budget
        bank_id = banks[i % scenario.banks]
        # Agents talk at the same time: their clocks start together and advance alike.
        start = clock + timedelta(minutes=random.Random(seed + i).randint(0, 60))
        stream = turns(seed * 1000 + i, start, shared[bank_id], tag)
        while budget > 0 and time.perf_counter() < deadline:
            budget -= 1
            items = [next(stream) for _ in range(scenario.items)]
            sent = time.perf_counter()
            try:
                answer = await retain(client, bank_id, items)
            except (httpx.HTTPError, RuntimeError) as exc:
                measured.errors.append(f"retain: {exc}")
                continue
            measured.retain_ms.append(1000 * (time.perf_counter() - sent))
            measured.requests += 1
            measured.facts += len(answer.memory_ids)
            measured.sent.extend(
                Sent(bank_id, outcome.document_id, tuple(outcome.memory_ids))
                for outcome in answer.items
            )

    async def reader(i: int) -> None:
        rng = random.Random(seed + 7 * i)
        while writing:
            bank_id = banks[rng.randrange(scenario.banks)]
            sent = time.perf_counter()
            try:
                await recall(client, bank_id, RecallRequest(query=rng.choice(queries)))
            except (httpx.HTTPError, RuntimeError) as exc:
                measured.errors.append(f"recall: {exc}")
                continue
            measured.recall_ms.append(1000 * (time.perf_counter() - sent))

    readers = [asyncio.create_task(reader(i)) for i in range(scenario.readers)]
    started = time.perf_counter()
    try:
        await asyncio.gather(*(writer(i) for i in range(scenario.writers)))
        measured.seconds = time.perf_counter() - started
    finally:
        writing = False
        await asyncio.gather(*readers)
    return measured


def _queries(rng: random.Random, shared: Sequence[str]) -> list[str]:
    cast = people(random.Random(7), 150)
    forms = [
        lambda: f"What did {rng.choice(cast)} do in {rng.choice(PLACES)}?",
        lambda: f"Who works on {rng.choice(PROJECTS)}?",
        lambda: f"When did {rng.choice(cast)} join {rng.choice(ORGS)}?",
        lambda: f"What happened with {rng.choice(PROJECTS)} in {rng.choice(PLACES)}?",
        lambda: f"Who is {rng.choice([*shared, *cast])}?",
    ]
    return [rng.choice(forms)() for _ in range(200)]


def report(scenario: Scenario, measured: Measured, base_rate: float | None) -> None:
    """One scenario's line."""
    ratio = f" ({measured.facts_per_s / base_rate:.2f} of the baseline)" if base_rate else ""
    print(
        f"{scenario.label:>10s}: {measured.requests:,d} requests, {measured.facts:,d} facts in "
        f"{measured.seconds:.1f} s = {measured.facts_per_s:.1f} facts/s{ratio}; "
        f"retain p50 {percentile(measured.retain_ms, 50):.0f} ms "
        f"p95 {percentile(measured.retain_ms, 95):.0f} ms; "
        f"recall p50 {percentile(measured.recall_ms, 50):.0f} ms "
        f"p95 {percentile(measured.recall_ms, 95):.0f} ms ({len(measured.recall_ms):,d}); "
        f"errors {len(measured.errors)}",
        flush=True,
    )
    for error in measured.errors[:5]:
        print(f"    {error}", flush=True)


# -- checks -------------------------------------------------------------------------------------


class _Stored(msgspec.Struct, frozen=True):
    bank_id: str
    id: str
    text: str
    document_id: str | None


async def stored_facts(client: httpx.AsyncClient, bank_id: str, tag: str) -> list[_Stored]:
    """Every fact of the bank carrying the run's tag, through the memories listing."""
    found: list[_Stored] = []
    offset = 0
    while True:
        response = await client.get(
            f"/v1/default/banks/{bank_id}/memories/list",
            params={"tags": tag, "tags_match": "all_strict", "limit": PAGE, "offset": offset},
        )
        response.raise_for_status()
        page = msgspec.json.decode(response.content, type=MemoryPage)
        found += [_Stored(bank_id, m.id, m.text, m.document_id) for m in page.items]
        offset += PAGE
        if offset >= page.total:
            return found


async def check_stored(
    client: httpx.AsyncClient, sent: Sequence[Sent], banks: Sequence[str], tag: str
) -> tuple[bool, list[_Stored]]:
    """Every answered item stored with exactly the facts its answer named, and no others."""
    stored = [fact for bank_id in banks for fact in await stored_facts(client, bank_id, tag)]
    by_document: dict[str, set[str]] = {}
    for fact in stored:
        by_document.setdefault(fact.document_id or "", set()).add(fact.id)
    promised = {m for item in sent for m in item.memory_ids}
    empty = sum(1 for item in sent if not item.memory_ids)
    lost = sum(
        1 for item in sent if not set(item.memory_ids) <= by_document.get(item.document_id, set())
    )
    extra = [fact for fact in stored if fact.id not in promised]
    documents = [item.document_id for item in sent]
    reused = len(documents) - len(set(documents))
    ok = not (lost or extra or empty or reused)
    print(
        f"check stored: {len(sent):,d} items answered with {len(promised):,d} facts; "
        f"{len(stored):,d} stored; items lost {lost}, without facts {empty}, "
        f"facts not in any answer {len(extra)}, documents answered twice {reused}: "
        + ("ok" if ok else "FAILED"),
        flush=True,
    )
    return ok, stored


async def check_searchable(client: httpx.AsyncClient, stored: Sequence[_Stored], tag: str) -> bool:
    """Recall finds every stored fact by its own text (so its vector and links are published)."""
    missing: list[str] = []
    slots = asyncio.Semaphore(4)

    async def find(fact: _Stored) -> None:
        request = RecallRequest(query=fact.text, tags=[tag], tags_match="all_strict", budget="low")
        async with slots:
            answer = await recall(client, fact.bank_id, request)
        if fact.id not in {r.id for r in answer.results}:
            missing.append(fact.id)

    started = time.perf_counter()
    await asyncio.gather(*(find(fact) for fact in stored))
    ok = not missing
    print(
        f"check searchable: {len(stored) - len(missing):,d} of {len(stored):,d} facts found by "
        f"recall of their own text ({time.perf_counter() - started:.0f} s): "
        + ("ok" if ok else f"FAILED, e.g. {missing[:3]}"),
        flush=True,
    )
    return ok


async def check_names(client: httpx.AsyncClient, shared: dict[str, list[str]]) -> bool:
    """Each shared name is one entity in each bank that heard it."""
    split: list[str] = []
    absent = 0
    for bank_id, names in shared.items():
        for name in names:
            response = await client.get(
                f"/v1/default/banks/{bank_id}/entities", params={"name": name, "limit": 100}
            )
            response.raise_for_status()
            page = msgspec.json.decode(response.content, type=EntityPage)
            same = [e for e in page.items if e.name.casefold() == name.casefold()]
            if len(same) > 1:
                split.append(f"{bank_id}:{name} x{len(same)}")
            absent += not same
    checked = sum(len(names) for names in shared.values())
    ok = not split
    print(
        f"check names: {checked} shared names over {len(shared)} banks ({absent} not used); "
        f"named by more than one entity: {len(split)}: " + ("ok" if ok else f"FAILED {split[:5]}"),
        flush=True,
    )
    return ok


# -- the run ------------------------------------------------------------------------------------


async def run(args: argparse.Namespace, url: str) -> bool:
    """Fill, baseline, scenarios, checks; True when every check passed."""
    scenarios = [Scenario.parse(s) for s in args.scenarios.split(",") if s]
    bank_count = max(s.banks for s in scenarios)
    banks = [f"{args.bank_prefix}-{i}" for i in range(bank_count)]
    most = max(s.writers + s.readers for s in scenarios)
    tag = f"load-{uuid.uuid4().hex[:8]}"
    seed = args.seed
    shared = {bank_id: shared_people(seed + i) for i, bank_id in enumerate(banks)}
    print(f"run {tag}: {len(banks)} banks of >= {args.bank_facts:,d} facts", flush=True)
    async with http_client(url, max(most, FILL_CLIENTS * bank_count, 8)) as client:
        for i, bank_id in enumerate(banks):
            await fill(client, bank_id, args.bank_facts, seed=7 + i)
        base_rate = None
        if args.baseline_seconds > 0:
            base_rate = await baseline(
                client, banks[0], args.baseline_clients, args.baseline_seconds
            )
        sent: list[Sent] = []
        for n, scenario in enumerate(scenarios):
            measured = await run_scenario(
                client,
                scenario,
                banks,
                shared,
                seconds=args.duration,
                max_requests=args.max_requests,
                tag=tag,
                seed=seed + 100 * (n + 1),
                clock=LOAD_START + timedelta(hours=6 * n),
            )
            report(scenario, measured, base_rate)
            sent += measured.sent
        ok, stored = await check_stored(client, sent, banks, tag)
        searchable = await check_searchable(client, stored, tag)
        names = await check_names(client, shared)
        if not args.keep_banks:
            for bank_id in banks:
                await client.delete(f"/v1/default/banks/{bank_id}")
    return ok and searchable and names


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--scenarios",
        default="1x1@1+0,8x1@1+2,32x1@8+2",
        help="comma-separated WxK@B+R: W writers, K items a request, B banks, R recall clients",
    )
    parser.add_argument("--bank-facts", type=int, default=10_000, help="facts in each bank first")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds per scenario")
    parser.add_argument(
        "--max-requests", type=int, default=20_000, help="retain requests per scenario at most"
    )
    parser.add_argument("--baseline-seconds", type=float, default=30.0, help="0: no baseline")
    parser.add_argument(
        "--baseline-clients", type=int, default=3, help="clients sending 100-item batches"
    )
    parser.add_argument(
        "--bank-prefix",
        help="banks are PREFIX-0, PREFIX-1, ... (default: load, or load-RUN with a temporary "
        "data directory, whose banks are deleted at the end)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--url", help="a running service (default: start one)")
    parser.add_argument("--data-dir", help="the started service's data (default: temporary)")
    parser.add_argument(
        "--server-env",
        action="append",
        default=[],
        metavar="MNEMO_X=Y",
        help="a setting for the started service (repeatable)",
    )
    parser.add_argument(
        "--neo4j-uri",
        default=None,
        help="default: MNEMO_NEO4J_URI, else the test Neo4j (started if needed)",
    )
    return parser


def main() -> int:
    """Run the benchmark against a started (or given) service."""
    args = build_parser().parse_args()
    # Banks outlive a run only with the data directory that holds their vectors.
    args.keep_banks = bool(args.url or args.data_dir)
    if args.bank_prefix is None:
        args.bank_prefix = "load" if args.keep_banks else f"load-{uuid.uuid4().hex[:6]}"
    if args.url:
        return 0 if asyncio.run(run(args, args.url)) else 1
    neo4j_uri = benchmark_neo4j_uri(args.neo4j_uri)
    with contextlib.ExitStack() as stack:
        data_dir = args.data_dir or stack.enter_context(
            tempfile.TemporaryDirectory(prefix="mnemo-load-")
        )
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        url = stack.enter_context(service(neo4j_uri, data_dir, args.server_env))
        return 0 if asyncio.run(run(args, url)) else 1


if __name__ == "__main__":
    sys.exit(main())
