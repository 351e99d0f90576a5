// Remove an active fact's links of the given types, both directions, before they are rebuilt
// (SEMANTIC after its text changed, TEMPORAL after its time changed).
// params: $bank_id, $memory_id, $types (subset of ['TEMPORAL', 'SEMANTIC'])
// mode: write
MATCH (m:Memory {bank_id: $bank_id, id: $memory_id})-[r:TEMPORAL|SEMANTIC]-(:Memory)
WHERE type(r) IN $types
DELETE r
RETURN count(*) AS removed
