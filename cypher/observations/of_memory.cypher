// The observations derived from one fact (any state), with every source of each: what
// DELETE .../memories/{id}/observations removes, and the facts to consolidate again.
// params: $bank_id, $memory_id
// mode: read
MATCH (o:Observation {bank_id: $bank_id})-[:DERIVED_FROM]->(:Memory {bank_id: $bank_id, id: $memory_id})
RETURN o.id AS id, [(o)-[:DERIVED_FROM]->(s:Memory) | s.id] AS source_ids
