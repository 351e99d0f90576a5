// New fact provenance for some name claims of one entity (a split trims them, its revert
// restores them), by references read in the same transaction.
// params: $bank_id, $entity_id, $updates [{ref, memory_ids, first_memory_id}]
// mode: write
MATCH (e:Entity {bank_id: $bank_id, id: $entity_id})
UNWIND $updates AS u
MATCH (e)-[k:KNOWN_AS]->(:Name)
WHERE elementId(k) = u.ref
SET k.memory_ids = u.memory_ids, k.first_memory_id = u.first_memory_id
RETURN count(k) AS updated
