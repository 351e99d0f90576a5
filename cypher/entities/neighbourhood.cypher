// An entity's neighbourhood for drawing: the $limit entities most often named in the same facts
// as it (how many facts), and the co-occurrences among those neighbours (each pair once).
// params: $bank_id, $entity_id, $limit
// mode: read
MATCH (c:Entity {bank_id: $bank_id, id: $entity_id})
CALL (c) {
  MATCH (c)-[r:CO_OCCURS]-(x:Entity {bank_id: $bank_id})
  WITH x, max(r.count) AS count
  ORDER BY count DESC, x.mention_count DESC, x.id
  LIMIT $limit
  RETURN collect(x) AS xs,
         collect({id: x.id, name: x.canonical_name, type: x.type,
                  mention_count: x.mention_count, count: count}) AS nodes
}
CALL (xs) {
  UNWIND xs AS a
  UNWIND xs AS b
  WITH a, b WHERE a.id < b.id
  MATCH (a)-[r:CO_OCCURS]-(b)
  RETURN collect(DISTINCT {source: a.id, target: b.id, count: r.count}) AS edges
}
RETURN c {.id, .canonical_name, .type, .mention_count} AS centre, nodes, edges
