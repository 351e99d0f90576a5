// The bank's observations, best supported first: text, proof count (distinct valid sources),
// the period their sources span, how often consolidation rewrote them, and their state (an
// invalidated one says why: retracted for lack of evidence, superseded, or by a person).
// params: $bank_id, $state = "valid", $limit = 50
// mode: read
MATCH (o:Observation {bank_id: $bank_id})
WHERE $state IS NULL OR o.state = $state
WITH o ORDER BY o.proof_count DESC, o.updated_at DESC, o.id
LIMIT toInteger($limit)
RETURN o.id AS id, o.text AS text, o.proof_count AS proof_count,
       o.occurred_start AS first, o.occurred_end AS last, o.state AS state,
       o.state_reason AS reason,
       COUNT { (o)-[:HAS_REVISION]->(:MemoryRevision) } AS revisions,
       [(o)-[:DERIVED_FROM]->(s:Memory) | s.text][..3] AS some_sources
