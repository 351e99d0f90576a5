// Degree and series key of the neighbours of loaded candidates (resolve/load_entities).
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (o:Entity {bank_id: $bank_id, id: id})
RETURN o.id AS id, COUNT { (o)-[:CO_OCCURS]-() } AS degree, coalesce(o.series, '') AS series
