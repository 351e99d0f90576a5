// Take facts out of the active graph while keeping everything needed to put them back: each
// MENTIONS, TEMPORAL, SEMANTIC and CAUSED_BY relationship touching them becomes an
// ARCHIVED_LINK in the same direction, between the same nodes, with the same properties plus
// `type` (the original relationship type) and `archived_at`. Traversals over the typed
// relationships (recall, analytics) cannot see them. FROM (provenance) and HAS_REVISION stay.
// params: $bank_id, $memory_ids, $at
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
CALL (m) {
  MATCH (m)-[r:MENTIONS|TEMPORAL|SEMANTIC|CAUSED_BY]->(x)
  CREATE (m)-[a:ARCHIVED_LINK]->(x)
  SET a = properties(r), a.type = type(r), a.archived_at = $at
  DELETE r
  RETURN count(a) AS outgoing
}
CALL (m) {
  MATCH (m)<-[r:TEMPORAL|SEMANTIC|CAUSED_BY]-(x:Memory)
  CREATE (m)<-[a:ARCHIVED_LINK]-(x)
  SET a = properties(r), a.type = type(r), a.archived_at = $at
  DELETE r
  RETURN count(a) AS incoming
}
RETURN sum(outgoing + incoming) AS archived
