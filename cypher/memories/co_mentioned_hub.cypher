// A hub entity's newest $per_entity facts (by created_at) other than the given fact, for the
// fact's co-mentioned facts. The bank's facts are read in the order of the (bank_id,
// created_at) index and kept when they name the hub, which meets $per_entity of them within a
// few rows; bank_id leads the ORDER BY so that the planner takes the index's order (see
// memories/list); the hint keeps the planner off the id index, which the id test tempts it to.
// params: $bank_id, $memory_id, $entity_id, $per_entity
// mode: read
MATCH (o:Memory {bank_id: $bank_id})
USING INDEX o:Memory(bank_id, created_at)
WHERE o.created_at IS NOT NULL AND o.id <> $memory_id
  AND EXISTS { MATCH (o)-[:MENTIONS]->(:Entity {bank_id: $bank_id, id: $entity_id}) }
WITH o ORDER BY o.bank_id DESC, o.created_at DESC LIMIT $per_entity
RETURN o.id AS id, o.text AS text, o.state AS state, o.created_at AS created_at
