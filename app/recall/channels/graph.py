"""The graph channel: facts connected to the seeds through shared entities and links."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import msgspec

from app.recall.candidates import QueryEntity
from app.recall.graph_scoring import (
    LinkKind,
    LinkPath,
    LinkReach,
    SeedEntity,
    graph_candidates,
)
from app.recall.ports import GraphReader
from app.recall.query import RecallQuery
from app.recall.recipes import RecallRecipe
from app.recall.rows import listed

# Links followed from each seed, strongest first. Retain keeps up to 50 SEMANTIC links per fact;
# beyond the strongest few they add rows to decode, not evidence (links only corroborate).
LINKS_PER_FACT = 10


class GraphSeeds(msgspec.Struct, frozen=True, kw_only=True):
    """Where the graph channel starts.

    ``facts``: the top vector/keyword facts with their strengths (``seed_strength`` of their
    rank); ``entities``: the entities the query names; ``pool``: every fact the other channels
    found, whose entities are checked too, so that a candidate already on the table and sharing
    a seed's or the query's entity is scored even when it is not within an entity's fan-out.
    """

    facts: tuple[tuple[str, float], ...] = ()
    entities: tuple[QueryEntity, ...] = ()
    pool: tuple[str, ...] = ()


class GraphChannel:
    """Expansion from seeds; score: ``graph_scoring.graph_score`` (noisy-OR, in [0, 1]).

    Two index-backed reads, concurrently:

    1. ``recall/graph_entities``: the entities of the seeds and of the pool, and the facts of
       each reached entity that has at most ``graph_entity_fanout`` of them;
    2. ``recall/graph_links``: SEMANTIC and CAUSED_BY neighbours of the seeds, hop by hop up to
       ``graph_max_hops`` (each hop a round trip from the strongest paths so far).

    Scoring is the pure ``graph_candidates``: distinct shared entities weighted by
    ``1/sqrt(degree)`` and saturating, plus the links, combined as a noisy-OR.
    """

    def __init__(self, graph: GraphReader) -> None:
        self._graph = graph

    async def search(
        self, query: RecallQuery, seeds: GraphSeeds, recipe: RecallRecipe
    ) -> list[tuple[str, float]]:
        """Up to ``recipe.graph_limit`` ``(id, graph score)`` pairs, best first."""
        if not seeds.facts and not seeds.entities:
            return []
        links_task = asyncio.ensure_future(self._links(query, seeds.facts, recipe))
        try:
            seed_entities, memberships = await self._entities(query, seeds, recipe)
        except BaseException:
            links_task.cancel()
            raise
        links = await links_task
        scores = graph_candidates(seed_entities, memberships, links, recipe.graph)
        ordered = sorted(scores.items(), key=lambda item: (-item[1], item[0]))
        return ordered[: recipe.graph_limit]

    async def _entities(
        self, query: RecallQuery, seeds: GraphSeeds, recipe: RecallRecipe
    ) -> tuple[list[SeedEntity], dict[str, set[str]]]:
        """Reached entities, and for each candidate fact the reached entities it mentions."""
        strength = dict(seeds.facts)
        rows = await self._graph.run(
            "recall/graph_entities",
            {
                "bank_id": query.bank_id,
                "ids": list(dict.fromkeys([*strength, *seeds.pool])),
                "seed_ids": list(strength),
                "query_entity_ids": [e.id for e in seeds.entities],
                "fanout": recipe.graph_entity_fanout,
                **query.cypher_filters(),
            },
        )
        fact_entities = {str(r["fact_id"]): r["entities"] for r in listed(rows, "facts")}
        seed_entities = [
            SeedEntity(entity_id=str(e["id"]), degree=int(e["degree"]), via=fact_id, strength=s)
            for fact_id, s in seeds.facts
            for e in fact_entities.get(fact_id, ())
        ]
        seed_entities.extend(
            SeedEntity(entity_id=e.id, degree=e.degree, via="", strength=e.strength)
            for e in seeds.entities
        )
        reached = {s.entity_id for s in seed_entities}
        memberships: dict[str, set[str]] = {}
        for fact_id, entities in fact_entities.items():
            shared = {str(e["id"]) for e in entities} & reached
            if shared:
                memberships[fact_id] = shared
        # The statement expanded only entities whose facts all fit in the fan-out: a capped
        # slice of a hub's facts would be arbitrary, and every fact in it would tie. A hub still
        # counts for the facts already on the table (the pool).
        for row in listed(rows, "entities"):
            for fact_id in row["facts"]:
                memberships.setdefault(str(fact_id), set()).add(str(row["entity_id"]))
        return seed_entities, memberships

    async def _links(
        self, query: RecallQuery, seed_facts: Sequence[tuple[str, float]], recipe: RecallRecipe
    ) -> list[LinkPath]:
        """SEMANTIC / CAUSED_BY paths from the seeds, one round trip per hop.

        A hop beyond the first starts from the best ``graph_seeds`` targets of the previous hop
        (by path strength), so the work per hop stays bounded whatever the link density.
        """
        kinds = [
            kind
            for kind, weight in (
                ("SEMANTIC", recipe.graph.semantic_weight),
                ("CAUSED_BY", recipe.graph.causal_weight),
            )
            if weight > 0
        ]
        paths: list[LinkPath] = []
        if not kinds:
            return paths
        # frontier: fact id -> (seed it descends from, seed strength, path weight, hops so far)
        frontier = {fact_id: (fact_id, s, 1.0, 0) for fact_id, s in seed_facts}
        seen = set(frontier)
        for _ in range(recipe.graph_max_hops):
            if not frontier:
                break
            rows = await self._graph.run(
                "recall/graph_links",
                {
                    "bank_id": query.bank_id,
                    "ids": list(frontier),
                    "kinds": kinds,
                    "per_fact": LINKS_PER_FACT,
                    **query.cypher_filters(),
                },
            )
            reached: dict[str, tuple[str, float, float, int]] = {}
            for row in listed(rows, "links"):
                seed, s, weight, hops = frontier[str(row["source"])]
                target = str(row["target"])
                path_weight = weight * float(row["weight"])
                kind: LinkKind = "caused_by" if row["kind"] == "CAUSED_BY" else "semantic"
                paths.append(
                    LinkPath(
                        seed=seed,
                        target=target,
                        reach=LinkReach(
                            kind=kind, weight=path_weight, seed_strength=s, hops=hops + 1
                        ),
                    )
                )
                best = reached.get(target)
                if target not in seen and (best is None or s * path_weight > best[1] * best[2]):
                    reached[target] = (seed, s, path_weight, hops + 1)
            strongest = sorted(reached.items(), key=lambda kv: -kv[1][1] * kv[1][2])
            frontier = dict(strongest[: recipe.graph_seeds])
            seen.update(frontier)
        return paths
