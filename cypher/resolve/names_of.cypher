// Every name key of the given entities, with their type, canonical name and label flag (to
// rebuild their lookup fields; to tell which index hits a mention could resolve to).
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (e)-[k:KNOWN_AS]->(n:Name)
RETURN e.id AS id, e.type AS type, e.canonical_name AS canonical_name,
       coalesce(e.is_label, false) AS is_label, collect(DISTINCT n.key) AS keys
