"""Exact-name resolution: a mention joins an entity ever called by the same normalised name.

Used for ``resolve_entities: false`` and as the conservative baseline. Types must agree (an
empty type agrees with any); among several namesakes the most recently seen one wins.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime

import msgspec

from app.curate.banks import Bank
from app.resolve.normalise import name_key
from app.resolve.port import FactToResolve, ResolvedMention
from app.store.graph import Tx
from app.store.search_keys import bank_key


class _Known(msgspec.Struct):
    key: str
    entity_id: str
    canonical_name: str
    type: str
    last_seen: datetime


class ExactResolver:
    """Resolve by normalised name equality only."""

    async def resolve(
        self, tx: Tx, bank: Bank, facts: Sequence[FactToResolve]
    ) -> list[list[ResolvedMention]]:
        """Match known names exactly; create one entity per new (name, type) in the batch."""
        keys = sorted({name_key(m.text) for f in facts for m in f.mentions} - {""})
        known: dict[str, list[_Known]] = {}
        for row in await tx.rows(
            "resolve/exact_candidates", {"bank_id": bank.id, "keys": keys}, _Known
        ):
            known.setdefault(row.key, []).append(row)
        created: dict[tuple[str, str], ResolvedMention] = {}
        new_entities: list[dict[str, object]] = []
        names: list[dict[str, object]] = []
        out: list[list[ResolvedMention]] = []
        for fact in facts:
            resolved: list[ResolvedMention] = []
            for mention in fact.mentions:
                key = name_key(mention.text)
                if not key:
                    continue
                match = _best(known.get(key, []), mention.type)
                if match is None:
                    slot = (key, mention.type)
                    if slot not in created:
                        entity_id = str(uuid.uuid4())
                        created[slot] = ResolvedMention(
                            entity_id=entity_id,
                            canonical_name=mention.text,
                            mention=mention.text,
                            type=mention.type,
                        )
                        new_entities.append(
                            {
                                "id": entity_id,
                                "canonical_name": mention.text.strip(),
                                "name_key": key,
                                "type": mention.type,
                                "is_label": False,
                                "at": fact.at,
                            }
                        )
                    entity = created[slot]
                    result = msgspec.structs.replace(entity, mention=mention.text)
                else:
                    result = ResolvedMention(
                        entity_id=match.entity_id,
                        canonical_name=match.canonical_name,
                        mention=mention.text,
                        type=match.type,
                    )
                resolved.append(result)
                names.append(
                    {
                        "entity_id": result.entity_id,
                        "key": key,
                        "text": mention.text,
                        "source": "mention",
                        "memory_id": fact.memory_id,
                        "at": fact.at,
                    }
                )
            out.append(resolved)
        await tx.run("resolve/create_entities", {"bank_id": bank.id, "entities": new_entities})
        await tx.run(
            "resolve/add_names",
            {"bank_id": bank.id, "bank_key": bank_key(bank.id), "names": names},
        )
        return out


def _best(known: Sequence[_Known], type_: str) -> _Known | None:
    compatible = [k for k in known if not type_ or not k.type or k.type == type_]
    return max(compatible, key=lambda k: k.last_seen, default=None)
