// Entities ever called by one of the given normalised names (the name-key index).
// params: $bank_id, $keys
// mode: read
UNWIND $keys AS key
MATCH (:Name {bank_id: $bank_id, key: key})<-[:KNOWN_AS]-(e:Entity)
RETURN key, e.id AS entity_id, e.canonical_name AS canonical_name,
       coalesce(e.type, '') AS type, e.last_seen AS last_seen
