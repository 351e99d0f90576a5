// Entities named in a query: entities ever called by one of the given normalised names
// (app.domain.names.name_key of the query's word n-grams).
// One row with a list: the Python driver spends ~50 µs per record, far more than per list item.
// params: $bank_id, $keys
// mode: read
UNWIND $keys AS key
MATCH (:Name {bank_id: $bank_id, key: key})<-[:KNOWN_AS]-(e:Entity)
// A name may carry one KNOWN_AS claim per mention (provenance): one row per entity.
WITH DISTINCT key, e
RETURN collect({key: key, entity_id: e.id, name: e.canonical_name, type: coalesce(e.type, ''),
                degree: coalesce(e.mention_count, 0)}) AS names
