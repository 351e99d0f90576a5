// What entity resolution needs of each candidate: names (and which were stated), type, times,
// counts, degree, the most frequent neighbours with their counts, and the entities a reviewer
// decided are different. Neighbours come as two parallel lists: a popular entity has hundreds,
// most of them shared with the other candidates, so their degree and series are read once
// per batch (resolve/neighbour_info), not once per pair.
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
  RETURN collect(o.id) AS neighbour_ids, collect(count) AS neighbour_counts
}
RETURN e.id AS id, e.canonical_name AS canonical_name, e.type AS type,
       e.first_seen AS first_seen, e.last_seen AS last_seen,
       e.mention_count AS mention_count, coalesce(e.is_label, false) AS is_label,
       COUNT { (e)-[:CO_OCCURS]-() } AS degree, names, neighbour_ids, neighbour_counts,
       [(e)-[:DIFFERENT_FROM]-(x:Entity) | x.id] AS decided_apart
