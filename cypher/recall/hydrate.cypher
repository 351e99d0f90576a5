// Everything a recall answer shows about the fused facts, plus the signals boosts read:
// one round trip for the whole candidate list. A fact retired since a channel saw it is left out.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
WHERE m.state = 'valid'
RETURN m.id AS id, m.text AS text, m.fact_type AS type, m.context AS context,
       m.occurred_start AS occurred_start, m.occurred_end AS occurred_end,
       m.mentioned_at AS mentioned_at, m.document_id AS document_id,
       m.metadata_json AS metadata_json, coalesce(m.tags, []) AS tags,
       coalesce(m.proof_count, 1) AS proof_count,
       [(m)-[r:MENTIONS]->(e:Entity) | {id: e.id, name: e.canonical_name, mention: r.mention,
                                         type: coalesce(e.type, ''),
                                         degree: coalesce(e.mention_count, 0)}]
         AS entities
