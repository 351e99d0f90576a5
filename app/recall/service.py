"""Recall: run the channels, fuse, rerank (optional), boost, fill the budget, shape the answer.

Order of work for one request::

    check ─ bank exists ─┬─ embed ─┬─ vector ───┐
                         │         └─ temporal ─┼───────────┐
                         ├─ keyword ────────────┤           │
                         └─ query entities ─────┴─ graph ───┴─ rrf ─ hydrate ─ rerank?
                                                               ─ boosts ─ budget ─ answer

Each channel runs under its own timeout and error guard: a channel that fails or is slow is
reported in the trace (``failed`` / ``timeout``) and the others still answer. Only when every
channel that ran failed is the request an error (503): an empty answer would then claim the
bank knows nothing.

The pure parts (fusion, boosts, budget, graph and temporal scoring) live in their own modules;
this one only orders the I/O, measures it and shapes the answer.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import msgspec

from app.domain.dates import DateOutOfRange, as_utc, parse_query_window
from app.domain.facts import recall_types
from app.errors import InvalidInput, MnemoError, Unavailable
from app.recall.boosts import FactSignals, apply_boosts, diversify, is_question
from app.recall.budget import BudgetFill, estimate_tokens, fill_budget
from app.recall.candidates import (
    CHANNELS,
    Channel,
    ChannelResult,
    FusedResult,
    QueryEntity,
    TimeWindow,
    ranked,
)
from app.recall.channels import (
    GraphChannel,
    GraphSeeds,
    KeywordChannel,
    TemporalChannel,
    VectorChannel,
)
from app.recall.entities import NameIndexLookup
from app.recall.fusion import apply_rerank, rrf
from app.recall.graph_scoring import seed_strength
from app.recall.observations import pick_source_facts, superseded
from app.recall.ports import (
    BankGuard,
    EntityFinder,
    GraphReader,
    QueryEmbedder,
    RerankCandidate,
    Reranker,
)
from app.recall.query import RecallQuery
from app.recall.query_text import hub_mentions, without_names
from app.recall.recipes import RecallRecipe, recipe_for
from app.recall.rows import from_epoch_ms, listed
from app.recall.schemas import (
    EntitySummary,
    MentionedEntity,
    RecallChunk,
    RecallRequest,
    RecallResponse,
    RecallResult,
    SourceFactsBudget,
)
from app.recall.trace import BudgetTrace, ChannelStatus, ChannelTrace, RecallTrace
from app.store.vectors import VectorStore

log = logging.getLogger(__name__)

Scored = list[tuple[str, float]]

# A channel slower than this is left out of the answer (and reported as "timeout").
DEFAULT_CHANNEL_TIMEOUT_S = 5.0
# After this, a bank's hub names are re-read in the background (they only steer what the vector
# channel embeds, and change slowly).
HUBS_TTL_S = 60.0


class _FactEntity(msgspec.Struct):
    """An entity a hydrated fact mentions."""

    id: str
    name: str
    mention: str | None = None
    type: str = ""
    degree: int = 0


class _Fact(msgspec.Struct):
    """One hydrated fact (``recall/hydrate``)."""

    id: str
    text: str
    type: str
    context: str | None
    occurred_start: datetime | None
    occurred_end: datetime | None
    mentioned_at: datetime | None
    document_id: str | None
    metadata_json: str | None
    tags: list[str]
    proof_count: int
    entities: list[_FactEntity]
    # The chunk it was extracted from (source diversity); absent for facts without one.
    chunk_id: str | None = None
    # An observation's valid sources (None for a fact).
    source_ids: list[str] | None = None


class _Outcome(msgspec.Struct, frozen=True):
    """What one guarded channel produced: its ranked result (empty unless ok) and its trace."""

    result: ChannelResult
    trace: ChannelTrace

    @property
    def ran(self) -> bool:
        """True unless the channel was skipped."""
        return self.trace.status != "skipped"

    @property
    def ok(self) -> bool:
        """True when the channel answered (possibly with nothing)."""
        return self.trace.status == "ok"


def _skipped(channel: Channel, why: str) -> _Outcome:
    return _Outcome(
        ChannelResult(channel=channel, candidates=()),
        ChannelTrace(channel=channel, status="skipped", detail=why),
    )


class _Clock:
    """Milliseconds per phase, measured with a monotonic clock."""

    def __init__(self) -> None:
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}

    def since(self, start: float) -> float:
        return round((time.perf_counter() - start) * 1000.0, 3)

    async def phase(self, name: str, work: Awaitable[Any]) -> Any:
        start = time.perf_counter()
        try:
            return await work
        finally:
            self.timings[name] = self.since(start)


def _utcnow() -> datetime:
    return datetime.now(UTC)


class RecallService:
    """The read path of a bank's memory (``POST .../memories/recall``)."""

    def __init__(
        self,
        *,
        graph: GraphReader,
        vectors: VectorStore,
        embedder: QueryEmbedder,
        banks: BankGuard,
        max_query_chars: int,
        published: Callable[[str], Awaitable[None]],
        entity_finder: EntityFinder | None = None,
        reranker: Reranker | None = None,
        channel_timeout_s: float = DEFAULT_CHANNEL_TIMEOUT_S,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self._graph = graph
        self._embedder = embedder
        self._banks = banks
        self._max_query_chars = max_query_chars
        self._published = published
        self._entities: EntityFinder = entity_finder or NameIndexLookup(graph)
        self._reranker = reranker
        self._timeout = channel_timeout_s
        self._clock = clock
        self._vector = VectorChannel(graph, vectors)
        self._keyword = KeywordChannel(graph)
        self._graph_channel = GraphChannel(graph)
        self._temporal = TemporalChannel(graph, vectors)
        # (bank id, hub share) -> (monotonic time read, hub name keys), and the reads running
        self._hubs: dict[tuple[str, float], tuple[float, frozenset[str]]] = {}
        self._hub_reads: dict[tuple[str, float], asyncio.Future[frozenset[str]]] = {}

    # -- the request ------------------------------------------------------------------------

    def check(self, request: RecallRequest) -> str:
        """Return the query text, or raise InvalidInput naming the field."""
        text = request.query.strip()
        if not text:
            raise InvalidInput("query must not be empty", extra={"field": "query"})
        if len(request.query) > self._max_query_chars:
            raise InvalidInput(
                f"query is {len(request.query)} characters; the limit is "
                f"{self._max_query_chars} (MNEMO_MAX_QUERY_CHARS)",
                extra={"field": "query", "max_chars": self._max_query_chars},
            )
        return text

    async def recall(
        self, bank_id: str, request: RecallRequest, *, recipe: RecallRecipe | None = None
    ) -> RecallResponse:
        """Answer one recall request (``recipe`` overrides the budget's, for experiments)."""
        clock = _Clock()
        text = self.check(request)
        recipe = recipe or recipe_for(request.budget)
        now = as_utc(request.query_timestamp) if request.query_timestamp else self._clock()
        notes: list[str] = []
        window = request.temporal_window or _parse_window(text, now, notes)
        query = RecallQuery(
            bank_id=bank_id,
            text=text,
            now=now,
            fact_types=recall_types(
                request.types, prefer_observations=bool(request.prefer_observations)
            ),
            # An empty list of tags filters nothing, like no list at all.
            tags=tuple(dict.fromkeys(request.tags)) if request.tags else None,
            tags_match=request.tags_match,
            window=window,
        )
        # The bank check runs beside the channels (a round trip off the critical path); an
        # unknown bank has nothing to find, and its 404 still wins over any channel outcome.
        exists = asyncio.ensure_future(self._banks.require(bank_id))
        try:
            outcomes, query_entities, vector_text = await self._channels(
                query, recipe, clock, notes
            )
            ran = [o for o in outcomes if o.ran]
            if ran and not any(o.ok for o in ran):
                # Checked before the bank: with the graph down, the bank check would fail too,
                # and a store error must read as 503, not as a missing bank or a 500.
                raise Unavailable(
                    "recall failed: no channel answered ("
                    + ", ".join(f"{o.trace.channel}: {o.trace.detail}" for o in ran)
                    + ")"
                )
        except BaseException:
            _settle(exists)
            raise
        await exists

        start = time.perf_counter()
        fused = rrf(
            (o.result for o in outcomes if o.ok),
            k=recipe.rrf_k,
            weights=recipe.weights,
            limit=recipe.max_fused,
        )
        clock.timings["fusion"] = clock.since(start)
        facts = await clock.phase("hydrate", self._hydrate(bank_id, [f.id for f in fused]))
        fused = [f for f in fused if f.id in facts]
        if self._reranker is not None and fused:
            fused = await clock.phase("rerank", self._rerank(text, fused, facts))

        start = time.perf_counter()
        boosted = apply_boosts(
            fused,
            {fact_id: _signals(fact) for fact_id, fact in facts.items()},
            now=now,
            window=window,
            config=recipe.boosts,
        )
        boosted = diversify(
            boosted,
            {fact_id: fact.chunk_id for fact_id, fact in facts.items() if fact.chunk_id},
            recipe.boosts.same_source_penalty,
        )
        clock.timings["boosts"] = clock.since(start)
        start = time.perf_counter()
        budget = fill_budget(boosted, lambda r: facts[r.id].text, request.max_tokens)
        if request.prefer_observations:
            budget, preferred = _prefer_observations(boosted, facts, request.max_tokens, budget)
            if preferred:
                notes.append(f"prefer_observations: {preferred} facts left to their observations")
        clock.timings["budget"] = clock.since(start)

        results = [_result(facts[r.id], r) for r in budget.kept]
        entities = _entity_summaries([facts[r.id] for r in budget.kept], query_entities)
        clock.timings["total"] = clock.since(clock.started)
        trace = None
        if request.trace:
            trace = RecallTrace(
                recipe=recipe,
                channels=tuple(o.trace for o in outcomes),
                fusion=tuple(boosted),
                budget=BudgetTrace(
                    max_tokens=request.max_tokens,
                    used_tokens=budget.used_tokens,
                    kept=len(budget.kept),
                    dropped=budget.dropped,
                ),
                timings_ms=clock.timings,
                query_window=window,
                query_entities=tuple(query_entities),
                vector_query=vector_text if vector_text != text else None,
                notes=tuple(notes),
            )
        chunks = None
        if request.include is not None and request.include.chunks is not None:
            chunks = await self._chunks(bank_id, results, request.include.chunks.max_tokens)
        source_facts: dict[str, RecallResult] | None = None
        truncated: bool | None = None
        if request.include is not None and request.include.source_facts is not None:
            source_facts, truncated = await self._source_facts(
                bank_id, results, facts, request.include.source_facts
            )
        return RecallResponse(
            results=results,
            entities=entities,
            trace=trace,
            chunks=chunks,
            source_facts=source_facts,
            source_facts_truncated=truncated,
        )

    # -- channels ---------------------------------------------------------------------------

    async def _channels(
        self, query: RecallQuery, recipe: RecallRecipe, clock: _Clock, notes: list[str]
    ) -> tuple[list[_Outcome], list[QueryEntity], str]:
        """Run the four channels (graph after its seeds).

        Returns the outcomes in ``CHANNELS`` order, the query entities, and the text the vector
        channel embedded.
        """
        run = _Run(self, query, recipe, clock, notes)
        # A retain is answered before its publish (decision 0019): the searches start once the
        # bank's publishes in flight land, and the query is embedded meanwhile.
        run.start_embedding()
        try:
            await clock.phase("publish_wait", self._published(query.bank_id))
        except BaseException:
            run.close()
            raise
        temporal_task = asyncio.ensure_future(run.temporal())
        try:
            vector_out, keyword_out, query_entities = await asyncio.gather(
                run.vector(), run.keyword(), run.entities()
            )
            graph_out = await run.graph(
                _graph_seeds(vector_out, keyword_out, query_entities, recipe)
            )
            temporal_out = await temporal_task
        finally:
            temporal_task.cancel()
            run.close()
        by_channel = {
            o.trace.channel: o for o in (vector_out, keyword_out, graph_out, temporal_out)
        }
        for channel in CHANNELS:
            if by_channel[channel].ran:
                clock.timings[channel] = by_channel[channel].trace.elapsed_ms
        return [by_channel[c] for c in CHANNELS], query_entities, run.vector_text

    async def _guarded(self, channel: Channel, work: Callable[[], Awaitable[Scored]]) -> _Outcome:
        """Run one channel under the timeout; failures become a trace entry, never an error."""
        start = time.perf_counter()
        status: ChannelStatus = "ok"
        detail: str | None = None
        scored: Scored = []
        try:
            scored = await asyncio.wait_for(work(), self._timeout)
        except TimeoutError:
            status, detail = "timeout", f"no answer within {self._timeout:g} s"
            log.warning("recall channel %s timed out", channel)
        except Exception as exc:  # isolation is the point: one broken channel must not sink recall
            status, detail = "failed", f"{type(exc).__name__}: {exc}"[:300]
            log.warning("recall channel %s failed", channel, exc_info=exc)
        elapsed = round((time.perf_counter() - start) * 1000.0, 3)
        result = ranked(channel, scored, elapsed_ms=elapsed)
        trace = ChannelTrace(
            channel=channel,
            status=status,
            candidates=result.candidates,
            elapsed_ms=elapsed,
            detail=detail,
        )
        return _Outcome(result, trace)

    async def _hub_keys(self, bank_id: str, share: float) -> frozenset[str]:
        """Name keys of the bank's hubs (``recall/hub_names``), cached per bank.

        Stale-while-revalidate: past ``HUBS_TTL_S`` the cached keys are still used and one
        background task re-reads them (the read scans the bank's facts, ~20 ms at 100k), so
        only a bank's very first recall in this process waits for it.
        """
        key = (bank_id, share)
        cached = self._hubs.get(key)
        if cached is not None:
            if time.monotonic() - cached[0] >= HUBS_TTL_S and key not in self._hub_reads:
                self._hub_reads[key] = asyncio.ensure_future(self._read_hubs(key))
            return cached[1]
        task = self._hub_reads.get(key)
        if task is None:
            task = self._hub_reads[key] = asyncio.ensure_future(self._read_hubs(key))
        return await asyncio.shield(task)

    async def _read_hubs(self, key: tuple[str, float]) -> frozenset[str]:
        try:
            rows = await self._graph.run(
                "recall/hub_names", {"bank_id": key[0], "min_share": key[1]}
            )
            keys = frozenset(str(k) for k in rows[0]["keys"]) if rows else frozenset()
            self._hubs[key] = (time.monotonic(), keys)
            return keys
        finally:
            self._hub_reads.pop(key, None)

    # -- after fusion -----------------------------------------------------------------------

    async def _hydrate(self, bank_id: str, ids: Sequence[str]) -> dict[str, _Fact]:
        if not ids:
            return {}
        rows = await self._graph.run("recall/hydrate", {"bank_id": bank_id, "ids": list(ids)})
        facts = listed(rows, "facts")
        for fact in facts:
            for key in ("occurred_start", "occurred_end", "mentioned_at"):
                fact[key] = from_epoch_ms(fact[key])
        return {fact.id: fact for fact in msgspec.convert(facts, list[_Fact], strict=False)}

    async def _chunks(
        self, bank_id: str, results: Sequence[RecallResult], max_tokens: int
    ) -> dict[str, RecallChunk]:
        """The source chunks of ``results`` in result order, until ``max_tokens`` are used.

        A chunk that does not fit whole is cut to what is left and marked ``truncated``; the
        chunks after it are left out.
        """
        ids = list(dict.fromkeys(r.chunk_id for r in results if r.chunk_id))
        if not ids:
            return {}
        rows = await self._graph.run("recall/chunks", {"bank_id": bank_id, "ids": ids})
        out: dict[str, RecallChunk] = {}
        left = max_tokens
        for row in rows:
            chunk = msgspec.convert(row, RecallChunk, strict=False)
            cost = estimate_tokens(chunk.text)
            if cost > left:
                if left > 0:
                    cut = chunk.text[: left * 4]
                    out[chunk.id] = msgspec.structs.replace(chunk, text=cut, truncated=True)
                break
            out[chunk.id] = chunk
            left -= cost
        return out

    async def _source_facts(
        self,
        bank_id: str,
        results: Sequence[RecallResult],
        facts: Mapping[str, _Fact],
        budget: SourceFactsBudget,
    ) -> tuple[dict[str, RecallResult], bool]:
        """The valid facts behind the observation results, within ``budget``.

        See :func:`pick_source_facts`; each is shown as a result without scores.
        """
        observations = [(r.id, r.source_memory_ids or []) for r in results if r.source_memory_ids]
        wanted = list(dict.fromkeys(s for _, ids in observations for s in ids))
        if not wanted:
            return {}, False
        known = dict(facts)
        missing = [s for s in wanted if s not in known]
        if missing:
            known.update(await self._hydrate(bank_id, missing))
        observations = [(o, [s for s in ids if s in known]) for o, ids in observations]
        pick = pick_source_facts(
            observations,
            lambda fact_id: estimate_tokens(known[fact_id].text),
            max_tokens=budget.max_tokens,
            max_tokens_per_observation=budget.max_tokens_per_observation,
        )
        return {i: _result(known[i], None) for i in pick.ids}, pick.truncated

    async def _rerank(
        self, text: str, fused: Sequence[FusedResult], facts: Mapping[str, _Fact]
    ) -> list[FusedResult]:
        assert self._reranker is not None
        scores = await self._reranker.rerank(
            text, [RerankCandidate(id=f.id, text=facts[f.id].text) for f in fused]
        )
        return apply_rerank(fused, dict(scores))


class _Run:
    """One request's channel runs: each channel as a method that knows when to skip itself.

    Shared inputs are computed once, as tasks: the query entities (graph seeds) and the
    embedding of the vector text (the query without the bank's hub names).
    """

    def __init__(
        self,
        service: RecallService,
        query: RecallQuery,
        recipe: RecallRecipe,
        clock: _Clock,
        notes: list[str],
    ) -> None:
        self._service = service
        self._query = query
        self._recipe = recipe
        self._clock = clock
        self._notes = notes
        self._weights = recipe.weights
        self._found: asyncio.Future[list[QueryEntity]] | None = None
        self._embedding: asyncio.Future[Any] | None = None
        # The text the vector and temporal channels embedded (the query, or it without hubs).
        self.vector_text = query.text

    # -- shared inputs ----------------------------------------------------------------------

    def _lookup(self) -> asyncio.Future[list[QueryEntity]]:
        if self._found is None:
            self._found = asyncio.ensure_future(self._find_entities())
        return self._found

    async def _find_entities(self) -> list[QueryEntity]:
        if self._weights.graph == 0 or self._recipe.graph_query_entities == 0:
            return []
        finder = self._service._entities
        limit = self._recipe.graph_query_entities
        try:
            found: list[QueryEntity] = await self._clock.phase(
                "query_entities",
                asyncio.wait_for(
                    finder.find(self._query.bank_id, self._query.text, limit),
                    self._service._timeout,
                ),
            )
        except Exception as exc:  # TimeoutError included: a lookup problem costs only seeds
            log.warning("query entity lookup failed: %r", exc)
            self._notes.append(f"query entity lookup failed ({type(exc).__name__})")
            return []
        return found

    def _embed(self) -> asyncio.Future[Any]:
        """The vector text's embedding, computed once for the vector and temporal channels."""
        if self._embedding is None:
            self._embedding = asyncio.ensure_future(self._embed_vector_text())
        return self._embedding

    def start_embedding(self) -> None:
        """Start embedding the vector text now, if a channel will need it."""
        if self._weights.vector or (self._weights.temporal and self._query.window is not None):
            self._embed()

    async def _embed_vector_text(self) -> Any:
        share = self._recipe.hub_share
        if share > 0:
            try:
                hubs = await self._clock.phase(
                    "hubs", self._service._hub_keys(self._query.bank_id, share)
                )
            except Exception as exc:  # without hub names the query is embedded whole
                log.warning("hub names unavailable: %r", exc)
                self._notes.append(f"hub names unavailable ({type(exc).__name__})")
            else:
                names = hub_mentions(self._query.text, hubs)
                self.vector_text = without_names(self._query.text, names)
        return await self._clock.phase("embed", self._service._embedder.embed_one(self.vector_text))

    def close(self) -> None:
        """Cancel shared work nobody needs any more, or mark its error as seen."""
        for task in (self._embedding, self._found):
            if task is not None:
                _settle(task)

    # -- channels ---------------------------------------------------------------------------

    async def vector(self) -> _Outcome:
        if self._weights.vector == 0:
            return _skipped("vector", "weight 0")
        emb = await _embedding(self._embed(), "vector")
        if isinstance(emb, _Outcome):
            return emb
        channel, limit = self._service._vector, self._recipe.vector_limit
        return await self._service._guarded(
            "vector", lambda: channel.search(self._query, emb, limit)
        )

    async def temporal(self) -> _Outcome:
        if self._weights.temporal == 0:
            return _skipped("temporal", "weight 0")
        window = self._query.window
        if window is None:
            return _skipped("temporal", "no time expression in the query")
        emb = await _embedding(self._embed(), "temporal")
        if isinstance(emb, _Outcome):
            return emb
        channel = self._service._temporal
        return await self._service._guarded(
            "temporal", lambda: channel.search(self._query, emb, window, self._recipe)
        )

    async def keyword(self) -> _Outcome:
        if self._weights.keyword == 0:
            return _skipped("keyword", "weight 0")
        channel, limit = self._service._keyword, self._recipe.keyword_limit
        return await self._service._guarded("keyword", lambda: channel.search(self._query, limit))

    async def entities(self) -> list[QueryEntity]:
        """The entities the query names, which seed the graph (none if the graph is off)."""
        return await self._lookup()

    async def graph(self, seeds: GraphSeeds) -> _Outcome:
        if self._weights.graph == 0:
            return _skipped("graph", "weight 0")
        if not seeds.facts and not seeds.entities:
            return _skipped("graph", "no seeds: no vector or keyword hit, no entity in the query")
        channel = self._service._graph_channel
        return await self._service._guarded(
            "graph", lambda: channel.search(self._query, seeds, self._recipe)
        )


# -- helpers ----------------------------------------------------------------------------------


async def _embedding(task: asyncio.Future[Any], channel: Channel) -> Any:
    """The query embedding as a list, or a failed outcome for ``channel`` if embedding failed."""
    try:
        vector = await task
    except MnemoError as exc:
        detail = f"embedding failed: {exc.detail}"
    except Exception as exc:  # the keyword and graph channels can still answer
        detail = f"embedding failed: {type(exc).__name__}: {exc}"
    else:
        return vector.tolist()
    return _Outcome(
        ChannelResult(channel=channel, candidates=()),
        ChannelTrace(channel=channel, status="failed", detail=detail[:300]),
    )


def _settle(task: asyncio.Future[Any]) -> None:
    """Cancel a task nobody will await, or mark its error as seen (no "never retrieved")."""
    if not task.done():
        task.cancel()
    elif not task.cancelled():
        task.exception()


def _parse_window(text: str, now: datetime, notes: list[str]) -> TimeWindow | None:
    """The window a time expression in the query names, resolved against ``now``."""
    try:
        found = parse_query_window(text, now)
    except DateOutOfRange:
        raise
    except Exception as exc:  # a parser bug must cost the temporal channel, not the request
        log.warning("could not parse a time window from the query", exc_info=exc)
        notes.append(f"time expression not parsed ({type(exc).__name__})")
        return None
    if found is None:
        return None
    if found[1] < found[0]:
        # "before X after Y" style contradictions: no window rather than a wrong one.
        notes.append("time expressions in the query contradict each other; no window used")
        return None
    return TimeWindow(start=found[0], end=found[1])


def _graph_seeds(
    vector: _Outcome, keyword: _Outcome, entities: Sequence[QueryEntity], recipe: RecallRecipe
) -> GraphSeeds:
    """The graph channel's seeds: the top of the vector+keyword fusion, and the query entities.

    Seed strength follows the seed's rank in that fusion (``seed_strength``), not its score,
    because the two channels' scores share no scale.
    """
    first = rrf(
        [o.result for o in (vector, keyword) if o.ok],
        k=recipe.rrf_k,
        weights=recipe.weights,
        limit=recipe.graph_seeds,
    )
    pool = [c.id for o in (vector, keyword) if o.ok for c in o.result.candidates]
    return GraphSeeds(
        facts=tuple(
            (f.id, seed_strength(rank, recipe.graph)) for rank, f in enumerate(first, start=1)
        ),
        entities=tuple(entities),
        pool=tuple(dict.fromkeys(pool)),
    )


def _signals(fact: _Fact) -> FactSignals:
    return FactSignals(
        mentioned_at=fact.mentioned_at,
        occurred_start=fact.occurred_start,
        occurred_end=fact.occurred_end,
        proof_count=max(1, fact.proof_count),
        is_question=is_question(fact.text),
    )


def _metadata(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        decoded = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        log.warning("unreadable metadata_json on a fact; returned as {'raw': ...}")
        return {"raw": raw}
    return decoded if isinstance(decoded, dict) else {"value": decoded}


def _prefer_observations(
    ranked: Sequence[FusedResult],
    facts: Mapping[str, _Fact],
    max_tokens: int,
    budget: BudgetFill[FusedResult],
) -> tuple[BudgetFill[FusedResult], int]:
    """Leave out the kept facts a kept observation was consolidated from, and refill the budget.

    Refilling can only keep more (the budget stops at its first misfit, so leaving results out
    keeps every earlier one); it ends when no kept fact is superseded. Returns the new fill and
    how many facts were left out.
    """
    sources = {i: f.source_ids for i, f in facts.items() if f.source_ids}
    if not sources:
        return budget, 0
    left_out: set[str] = set()
    while found := superseded([r.id for r in budget.kept], sources):
        left_out |= found
        rest = [r for r in ranked if r.id not in left_out]
        budget = fill_budget(rest, lambda r: facts[r.id].text, max_tokens)
    return budget, len(left_out)


def _result(fact: _Fact, fused: FusedResult | None) -> RecallResult:
    return RecallResult(
        id=fact.id,
        text=fact.text,
        type=fact.type,
        mentions=[
            MentionedEntity(id=e.id, name=e.name, mention=e.mention or e.name)
            for e in sorted(fact.entities, key=lambda e: (e.name, e.id))
        ],
        chunk_id=fact.chunk_id,
        context=fact.context,
        occurred_start=fact.occurred_start,
        occurred_end=fact.occurred_end,
        mentioned_at=fact.mentioned_at,
        document_id=fact.document_id,
        metadata=_metadata(fact.metadata_json),
        tags=fact.tags,
        scores=fused.scores() if fused is not None else {},
        proof_count=max(1, fact.proof_count),
        source_memory_ids=sorted(fact.source_ids) if fact.source_ids is not None else None,
    )


def _entity_summaries(
    facts: Sequence[_Fact], query_entities: Sequence[QueryEntity]
) -> dict[str, EntitySummary]:
    """Every entity of the returned facts, and those the query names, by id."""
    out: dict[str, EntitySummary] = {}
    for entity in query_entities:
        out[entity.id] = EntitySummary(
            id=entity.id,
            name=entity.name,
            type=entity.type,
            mention_count=entity.degree,
            in_query=True,
        )
    for fact in facts:
        for e in fact.entities:
            if e.id not in out:
                out[e.id] = EntitySummary(id=e.id, name=e.name, type=e.type, mention_count=e.degree)
    return out
