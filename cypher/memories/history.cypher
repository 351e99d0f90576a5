// Every revision of one fact, oldest first.
// params: $bank_id, $memory_id
// mode: read
MATCH (:Memory {bank_id: $bank_id, id: $memory_id})-[:HAS_REVISION]->(r:MemoryRevision)
RETURN r {.id, .at, .kind, .reason, .fields, .before_json, .after_json} AS revision
ORDER BY r.at, r.id
