// An entity's timeline: the valid facts that name it, in event time (occurred_start; facts
// without one at the time they were mentioned), with the names they used and their document.
// params: $bank_id, $entity_id, $limit = 100
// mode: read
MATCH (:Entity {bank_id: $bank_id, id: $entity_id})<-[r:MENTIONS]-(m:Memory)
WITH m, collect(DISTINCT r.mention) AS mentions
ORDER BY coalesce(m.occurred_start, m.mentioned_at), m.mentioned_at, m.id
LIMIT toInteger($limit)
RETURN m.id AS id, m.occurred_start AS occurred_start, m.occurred_end AS occurred_end,
       m.mentioned_at AS mentioned_at, m.fact_type AS type, m.text AS text, mentions,
       m.document_id AS document_id
