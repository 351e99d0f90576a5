// Ids of the entities that co-occur with the given ones (whose edges a merge recomputes).
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (:Entity {bank_id: $bank_id, id: id})-[:CO_OCCURS]-(o:Entity)
RETURN collect(DISTINCT o.id) AS ids
