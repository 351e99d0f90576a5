// How many observations were derived from this memory.
// params: $bank_id, $memory_id
// mode: read
MATCH (o:Observation {bank_id: $bank_id})-[:DERIVED_FROM]->(:Memory {bank_id: $bank_id, id: $memory_id})
RETURN count(DISTINCT o) AS n
