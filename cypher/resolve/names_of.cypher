// Every name key of the given entities with its stated flag (to rebuild their lookup fields).
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (e)-[k:KNOWN_AS]->(n:Name)
RETURN e.id AS id, e.type AS type, e.canonical_name AS canonical_name,
       collect(DISTINCT n.key) AS keys
