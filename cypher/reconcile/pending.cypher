// Facts whose vector write was not confirmed (a crash between the two stores), a page at a time.
// params: $limit
// mode: read
MATCH (m:Memory)
WHERE m.vector_pending = true
RETURN m.bank_id AS bank_id, m.id AS id, m.text AS text, m.fact_type AS fact_type,
       m.state AS state, m.tags AS tags, m.occurred_start AS occurred_start,
       m.occurred_end AS occurred_end, m.mentioned_at AS mentioned_at
LIMIT $limit
