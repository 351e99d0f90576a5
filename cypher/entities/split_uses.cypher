// Which of $memory_ids mention the entity (active or archived mentions), with the surface text
// each used and the fact's mention time; and how many facts mention it in all. $surfaces
// narrows a memory listed there to the mentions written so (see entities/split).
// params: $bank_id, $id, $memory_ids, $surfaces
// mode: read
MATCH (e:Entity {bank_id: $bank_id, id: $id})
CALL (e) {
  UNWIND $memory_ids AS mid
  MATCH (m:Memory {bank_id: $bank_id, id: mid})-[r:MENTIONS|ARCHIVED_LINK]->(e)
  WHERE (type(r) = 'MENTIONS' OR r.type = 'MENTIONS')
    AND (NOT mid IN keys($surfaces) OR r.mention IN $surfaces[mid])
  RETURN collect({memory_id: m.id, surface: r.mention, at: m.mentioned_at}) AS uses
}
CALL (e) {
  MATCH (m:Memory)-[r:MENTIONS|ARCHIVED_LINK]->(e)
  WHERE (type(r) = 'MENTIONS' OR r.type = 'MENTIONS') AND NOT m:Observation
  RETURN count(DISTINCT m) AS total
}
RETURN uses, total
