// What entity resolution needs of each candidate: names (and which were stated), type, times,
// counts, degree, the most frequent neighbours with their counts, and the entities a reviewer
// decided are different; and, in the same round trip, the degree and series key of each
// distinct neighbour not in $known. A popular entity has hundreds of neighbours, most of them
// shared with the other candidates, so each neighbour's degree is read once per statement,
// not once per pair, and not again for neighbours an earlier load of the batch read.
// With $hub (null: every neighbour), no neighbour of that degree or more is listed: a hub
// weighs nothing as company, and in a dense bank hubs are most of every entity's neighbours.
// One row: `entities` (in the order of $ids) and `neighbours`. Times come as ISO 8601 text:
// the driver decodes a temporal value in pure Python, at a cost that shows in every write.
// params: $bank_id, $ids, $max_neighbours, $hub, $known
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
CALL (e) {
  MATCH (e)-[k:KNOWN_AS]->(n:Name)
  RETURN collect({key: n.key, stated: coalesce(k.stated, false)}) AS names
}
CALL (e) {
  MATCH (e)-[r:CO_OCCURS]-(o:Entity)
  WHERE $hub IS NULL OR COUNT { (o)-[:CO_OCCURS]-() } < $hub
  WITH o, r.count AS count ORDER BY count DESC, o.id LIMIT $max_neighbours
  RETURN collect(o.id) AS neighbour_ids, collect(count) AS neighbour_counts
}
WITH collect({
  id: e.id, canonical_name: e.canonical_name, type: e.type,
  first_seen: toString(e.first_seen), last_seen: toString(e.last_seen),
  mention_count: e.mention_count, is_label: coalesce(e.is_label, false),
  degree: COUNT { (e)-[:CO_OCCURS]-() }, names: names,
  neighbour_ids: neighbour_ids, neighbour_counts: neighbour_counts,
  decided_apart: [(e)-[:DIFFERENT_FROM]-(x:Entity) | x.id]
}) AS entities
CALL (entities) {
  UNWIND entities AS loaded
  UNWIND loaded.neighbour_ids AS neighbour
  WITH DISTINCT neighbour
  WHERE NOT neighbour IN $known
  MATCH (o:Entity {bank_id: $bank_id, id: neighbour})
  RETURN collect({
    id: o.id, degree: COUNT { (o)-[:CO_OCCURS]-() }, series: coalesce(o.series, '')
  }) AS neighbours
}
RETURN entities, neighbours
