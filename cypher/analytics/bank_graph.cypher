// A picture of a bank for Neo4j Browser (run it there, switch to the graph view): its $limit
// most mentioned entities, up to $per_entity recent valid facts naming each, and every active
// link among them — MENTIONS, CO_OCCURS, TEMPORAL, SEMANTIC, CAUSED_BY — one path a row.
// params: $bank_id, $limit = 10, $per_entity = 8
// mode: read
MATCH (e:Entity {bank_id: $bank_id})
WITH e ORDER BY e.mention_count DESC, e.id LIMIT toInteger($limit)
CALL (e) {
  MATCH (m:Memory)-[:MENTIONS]->(e)
  WITH DISTINCT m ORDER BY m.mentioned_at DESC, m.id LIMIT toInteger($per_entity)
  RETURN m
}
WITH collect(DISTINCT e) AS entities, collect(DISTINCT m) AS facts
CALL (entities, facts) {
  UNWIND facts AS m
  MATCH p = (m)-[:MENTIONS]->(x:Entity)
  WHERE x IN entities
  RETURN p
  UNION
  UNWIND entities AS x
  MATCH p = (x)-[:CO_OCCURS]->(y:Entity)
  WHERE y IN entities
  RETURN p
  UNION
  UNWIND facts AS m
  MATCH p = (m)-[:TEMPORAL|SEMANTIC|CAUSED_BY]->(n:Memory)
  WHERE n IN facts
  RETURN p
}
RETURN p
