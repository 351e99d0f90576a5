// The co-occurrence graph, bounded: the $limit most mentioned entities (optionally of one
// type) and the CO_OCCURS edges among them counting at least $min_count facts, most frequent
// first, at most $max_edges. Edges are checked pair by pair between the chosen nodes, so a
// hub's thousands of other edges are never read.
// params: $bank_id, $type, $limit, $min_count, $max_edges
// mode: read
MATCH (e:Entity {bank_id: $bank_id})
WHERE $type IS NULL OR toLower(e.type) = toLower($type)
WITH e ORDER BY e.mention_count DESC, e.canonical_name, e.id LIMIT $limit
WITH collect(e) AS nodes
CALL (nodes) {
  UNWIND nodes AS a
  UNWIND nodes AS b
  WITH a, b WHERE a.id < b.id
  MATCH (a)-[r:CO_OCCURS]->(b)
  WHERE r.count >= $min_count
  WITH a, b, r ORDER BY r.count DESC, a.id, b.id LIMIT $max_edges
  RETURN collect({source: a.id, target: b.id, count: r.count, first_at: r.first_at,
                  last_at: r.last_at}) AS edges
}
RETURN [n IN nodes | n {.id, .canonical_name, .type, .mention_count}] AS nodes, edges
