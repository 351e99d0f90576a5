// A bank's observations whose vector the vector store has not confirmed (new, rewritten,
// retracted): their text, state and payload fields; whether their stored vector was computed
// from this text (vector_current), and a source worded exactly like them (its vector is theirs):
// either saves embedding the text again.
// params: $bank_id, $limit
// mode: read
MATCH (o:Observation {bank_id: $bank_id})
WHERE o.vector_pending = true
WITH o LIMIT $limit
RETURN o.id AS id, o.text AS text, o.state AS state, coalesce(o.tags, []) AS tags,
       o.occurred_start AS occurred_start, o.occurred_end AS occurred_end,
       o.mentioned_at AS mentioned_at,
       o.vector_text = o.text AS vector_current,
       head([(o)-[:DERIVED_FROM]->(s:Memory) WHERE s.text = o.text | s.id]) AS same_text_source
