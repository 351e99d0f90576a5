// Ids of the facts that mention any of the given entities, active or archived (an invalidated
// fact keeps its mentions as ARCHIVED_LINK): the facts whose entity names a repair refreshes.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (:Entity {bank_id: $bank_id, id: id})<-[r:MENTIONS|ARCHIVED_LINK]-(m:Memory)
WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS'
RETURN collect(DISTINCT m.id) AS ids
