// Derive entities' counts, first/last seen and co-occurrence edges from their MENTIONS (after
// a merge, split or revert moved mentions); one CO_OCCURS per pair, from smaller to larger id.
// Observations' MENTIONS (the union of their sources') count nothing.
// All edges of the given entities go first; then each pair is created once: by the entity with
// the smaller id when both are in $ids, by the one in $ids otherwise.
// params: $bank_id, $ids
// mode: write
CALL () {
  UNWIND $ids AS id
  MATCH (:Entity {bank_id: $bank_id, id: id})-[old:CO_OCCURS]-()
  WITH DISTINCT old
  DELETE old
}
UNWIND $ids AS id
MATCH (x:Entity {bank_id: $bank_id, id: id})
CALL (x) {
  MATCH (m:Memory)-[:MENTIONS]->(x)
  WHERE NOT m:Observation
  WITH DISTINCT m
  RETURN count(m) AS mentions, min(m.mentioned_at) AS first, max(m.mentioned_at) AS last
}
SET x.mention_count = mentions,
    x.first_seen = coalesce(first, x.first_seen), x.last_seen = coalesce(last, x.last_seen)
WITH x
CALL (x) {
  MATCH (x)<-[:MENTIONS]-(m:Memory)-[:MENTIONS]->(o:Entity)
  WHERE o <> x AND (NOT o.id IN $ids OR x.id < o.id) AND NOT m:Observation
  WITH o, count(DISTINCT m) AS n, min(m.mentioned_at) AS first, max(m.mentioned_at) AS last
  CALL (x, o, n, first, last) {
    WITH x, o, n, first, last WHERE x.id < o.id
    CREATE (x)-[:CO_OCCURS {count: n, first_at: first, last_at: last}]->(o)
    UNION
    WITH x, o, n, first, last WHERE o.id < x.id
    CREATE (o)-[:CO_OCCURS {count: n, first_at: first, last_at: last}]->(x)
  }
}
RETURN count(x) AS recomputed
