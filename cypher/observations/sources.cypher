// An observation's sources as GET shows them: id, text, type, dates and state, oldest first
// (sources a deleted fact took with it are gone; an invalidated source has left it already).
// params: $bank_id, $memory_id
// mode: read
MATCH (:Observation {bank_id: $bank_id, id: $memory_id})-[:DERIVED_FROM]->(s:Memory)
RETURN s {.id, .text, .fact_type, .context, .occurred_start, .occurred_end, .mentioned_at,
          .document_id, .state} AS source
ORDER BY coalesce(s.occurred_start, s.mentioned_at), s.id
