// Entities named in a query: entities ever called by one of the given normalised names
// (app.resolve.normalise.name_key of the query's word n-grams).
// params: $bank_id, $keys
// mode: read
UNWIND $keys AS key
MATCH (:Name {bank_id: $bank_id, key: key})<-[:KNOWN_AS]-(e:Entity)
RETURN key, e.id AS entity_id, e.canonical_name AS name, coalesce(e.type, '') AS type,
       coalesce(e.mention_count, 0) AS degree
