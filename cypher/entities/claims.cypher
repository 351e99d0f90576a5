// Every name claim (KNOWN_AS edge) of one entity, with a reference valid inside the
// transaction, its Name key and text, and its properties (provenance and merge tags).
// params: $bank_id, $id
// mode: read
MATCH (e:Entity {bank_id: $bank_id, id: $id})-[k:KNOWN_AS]->(n:Name)
RETURN k {.*, ref: elementId(k), key: n.key, text: n.text} AS claim
