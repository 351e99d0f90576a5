"""RecallService orchestration with in-memory fakes: isolation, timeouts, errors, ordering."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pytest

from app.errors import InvalidInput, NotFound, Unavailable
from app.recall.schemas import RecallRequest
from app.recall.service import RecallService
from app.store.vectors import VectorFilter, VectorHit

NOW = datetime(2024, 6, 1, tzinfo=UTC)
FACTS = {
    "a": "Ravi adopted a greyhound named Comet.",
    "b": "Comet loves the beach at Brighton.",
    "c": "What is new with you?",
}


class FakeGraph:
    """Answers the recall statements by name; ``fail``/``slow`` make one statement misbehave."""

    def __init__(self, *, fail: set[str] = frozenset(), slow: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.fail = fail
        self.slow = slow
        self.calls: list[str] = []

    async def run(self, name: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        self.calls.append(name)
        params = params or {}
        if name in self.slow:
            await asyncio.sleep(1.0)
        if name in self.fail:
            raise ConnectionError(f"{name} is down")
        if name == "recall/keyword":
            return [{"hits": [{"id": "b", "score": 3.0}, {"id": "c", "score": 1.0}]}]
        if name == "recall/vector_join":
            return [{"hits": list(params["hits"])}]
        if name == "recall/hub_names":
            return [{"facts": len(FACTS), "keys": []}]
        if name in ("recall/names_exact", "recall/names_fuzzy"):
            return [{"names": []}]
        if name == "recall/graph_entities":
            return [{"facts": [], "entities": []}]
        if name == "recall/graph_links":
            return [{"links": []}]
        if name == "recall/hydrate":
            return [
                {
                    "facts": [
                        {
                            "id": i,
                            "text": FACTS[i],
                            "type": "world",
                            "context": None,
                            "occurred_start": None,
                            "occurred_end": None,
                            "mentioned_at": None,
                            "document_id": None,
                            "metadata_json": '{"k": "v"}',
                            "tags": [],
                            "proof_count": 1,
                            "entities": [],
                        }
                        for i in params["ids"]
                    ]
                }
            ]
        raise AssertionError(f"unexpected statement {name}")


class FakeVectors:
    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail

    async def search(
        self, vector: Sequence[float], where: VectorFilter, limit: int
    ) -> list[VectorHit]:
        if self.fail:
            raise ConnectionError("vector store down")
        return [VectorHit("a", 0.9), VectorHit("b", 0.5)][:limit]


class FakeEmbedder:
    def __init__(self, *, fail: bool = False) -> None:
        self.fail = fail

    async def embed_one(self, text: str) -> Any:
        if self.fail:
            raise RuntimeError("onnx session lost")
        return np.ones(3, dtype=np.float32)


class FakeBanks:
    def __init__(self, *known: str) -> None:
        self.known = set(known) or {"b1"}

    async def require(self, bank_id: str) -> None:
        if bank_id not in self.known:
            raise NotFound(f"bank {bank_id!r} not found")


async def nothing_in_flight(bank_id: str) -> None:
    """No retain of this process is publishing into the bank."""


def service(
    graph: FakeGraph | None = None,
    *,
    vectors: FakeVectors | None = None,
    embedder: FakeEmbedder | None = None,
    timeout: float = 5.0,
    published: Callable[[str], Awaitable[None]] = nothing_in_flight,
) -> RecallService:
    return RecallService(
        graph=graph or FakeGraph(),
        vectors=vectors or FakeVectors(),  # type: ignore[arg-type]
        embedder=embedder or FakeEmbedder(),
        banks=FakeBanks(),
        max_query_chars=50,
        published=published,
        channel_timeout_s=timeout,
        clock=lambda: NOW,
    )


def request(query: str = "Where does Comet like to run?", **kw: Any) -> RecallRequest:
    return RecallRequest(query=query, trace=True, **kw)


def statuses(answer: Any) -> dict[str, str]:
    return {c.channel: c.status for c in answer.trace.channels}


async def test_fuses_vector_and_keyword_and_shapes_results():
    answer = await service().recall("b1", request())
    assert [r.id for r in answer.results] == ["b", "a", "c"]  # b is found by both channels
    assert answer.results[0].metadata == {"k": "v"}
    assert set(answer.results[0].scores) == {"final", "vector", "keyword"}
    assert statuses(answer) == {
        "vector": "ok",
        "keyword": "ok",
        "graph": "ok",
        "temporal": "skipped",
    }


async def test_the_searches_start_once_the_banks_publishes_in_flight_land():
    landed = asyncio.Event()
    waited_for: list[str] = []

    async def published(bank_id: str) -> None:
        waited_for.append(bank_id)
        await landed.wait()

    graph = FakeGraph()
    answer = asyncio.create_task(service(graph, published=published).recall("b1", request()))
    await asyncio.sleep(0.05)
    assert waited_for == ["b1"] and not answer.done()
    assert not {"recall/keyword", "recall/vector_join", "recall/hydrate"} & set(graph.calls)
    landed.set()
    assert [r.id for r in (await answer).results] == ["b", "a", "c"]


async def test_question_fact_is_demoted_below_an_equal_statement():
    answer = await service().recall("b1", request())
    assert answer.results[-1].id == "c"
    assert answer.trace is not None
    fused = {f.id: f for f in answer.trace.fusion}
    assert fused["c"].boosts.question_penalty > 0


async def test_a_failing_channel_is_reported_and_the_others_answer():
    answer = await service(FakeGraph(fail={"recall/keyword"})).recall("b1", request())
    assert statuses(answer)["keyword"] == "failed"
    keyword = next(c for c in answer.trace.channels if c.channel == "keyword")
    assert "ConnectionError" in (keyword.detail or "")
    assert [r.id for r in answer.results] == ["a", "b"]


async def test_a_slow_channel_times_out_and_the_others_answer():
    answer = await service(FakeGraph(slow={"recall/keyword"}), timeout=0.2).recall("b1", request())
    assert statuses(answer)["keyword"] == "timeout"
    assert [r.id for r in answer.results] == ["a", "b"]


async def test_embedder_failure_costs_the_vector_channel_only():
    answer = await service(embedder=FakeEmbedder(fail=True)).recall("b1", request())
    assert statuses(answer)["vector"] == "failed"
    assert [r.id for r in answer.results] == ["b", "c"]


async def test_every_channel_failing_is_unavailable():
    graph = FakeGraph(fail={"recall/keyword", "recall/vector_join", "recall/graph_entities"})
    with pytest.raises(Unavailable, match="no channel answered"):
        await service(graph, vectors=FakeVectors(fail=True)).recall("b1", request())


async def test_unknown_bank_is_not_found():
    with pytest.raises(NotFound):
        await service().recall("nope", request())


@pytest.mark.parametrize("query", ["", "  \n"])
async def test_empty_query_is_invalid(query: str):
    with pytest.raises(InvalidInput) as caught:
        await service().recall("b1", request(query))
    assert caught.value.extra == {"field": "query"}


async def test_query_over_the_limit_is_invalid_naming_the_limit():
    with pytest.raises(InvalidInput) as caught:
        await service().recall("b1", request("x" * 51))
    assert caught.value.extra == {"field": "query", "max_chars": 50}


async def test_window_from_the_query_runs_the_temporal_channel():
    graph = FakeGraph()
    answer = await service(graph).recall(
        "b1", request("What did Ravi do in May 2024?", query_timestamp=NOW)
    )
    assert answer.trace is not None and answer.trace.query_window is not None
    assert answer.trace.query_window.start == datetime(2024, 5, 1, tzinfo=UTC)
    assert statuses(answer)["temporal"] != "skipped"


class ReverseReranker:
    """Scores candidates in reverse fused order (a stand-in for a cross-encoder)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def rerank(self, query: str, candidates: Sequence[Any]) -> list[tuple[str, float]]:
        self.seen = [c.id for c in candidates]
        n = len(candidates)
        return [(c.id, (i + 1) / (n + 1)) for i, c in enumerate(candidates)]


async def test_a_reranker_reorders_the_fused_candidates_before_boosts():
    reranker = ReverseReranker()
    recaller = RecallService(
        graph=FakeGraph(),
        vectors=FakeVectors(),  # type: ignore[arg-type]
        embedder=FakeEmbedder(),
        banks=FakeBanks(),
        max_query_chars=50,
        published=nothing_in_flight,
        reranker=reranker,
        clock=lambda: NOW,
    )
    answer = await recaller.recall("b1", request())
    assert reranker.seen == ["b", "a", "c"]
    # Reranker scores b 0.25, a 0.50, c 0.75; c is a question, so boosts then take a quarter
    # off: 0.5625, still first. final = the reranker's score × the boost factors.
    assert [r.id for r in answer.results] == ["c", "a", "b"]
    assert answer.results[0].scores["final"] == pytest.approx(0.75 * 0.75)
    assert answer.results[1].scores["final"] == pytest.approx(0.5)
    assert answer.trace is not None and "rerank" in answer.trace.timings_ms
