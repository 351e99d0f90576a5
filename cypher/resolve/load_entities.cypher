// What entity resolution needs of each candidate: names (and which were stated), type, times,
// counts, degree, the most frequent neighbours with their degree and series key, and the
// entities a reviewer decided are different.
// params: $bank_id, $ids, $max_neighbours
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
CALL (e) {
  MATCH (e)-[k:KNOWN_AS]->(n:Name)
  RETURN collect({key: n.key, stated: coalesce(k.stated, false)}) AS names
}
CALL (e) {
  MATCH (e)-[r:CO_OCCURS]-(o:Entity)
  WITH o, r.count AS count ORDER BY count DESC, o.id LIMIT $max_neighbours
  RETURN collect({
    id: o.id, count: count, degree: COUNT { (o)-[:CO_OCCURS]-() }, series: coalesce(o.series, '')
  }) AS neighbours
}
RETURN e.id AS id, e.canonical_name AS canonical_name, e.type AS type,
       e.first_seen AS first_seen, e.last_seen AS last_seen,
       e.mention_count AS mention_count, coalesce(e.is_label, false) AS is_label,
       COUNT { (e)-[:CO_OCCURS]-() } AS degree, names, neighbours,
       [(e)-[:DIFFERENT_FROM]-(x:Entity) | x.id] AS decided_apart
