// Possible namesakes: names (one normalised key) that several entities are known by — "Alex"
// said of Alex Kim and of Alex Moreno. One row per name, the entities most mentioned first, each
// with how many facts called it by that name and the entities it is most often seen with (what
// tells them apart). Namesakes are normal; check that each fact went to the right one.
// params: $bank_id, $limit = 20
// mode: read
MATCH (n:Name {bank_id: $bank_id})<-[:KNOWN_AS]-(e:Entity)
WITH n, count(DISTINCT e) AS entities
WHERE entities > 1
WITH n, entities ORDER BY entities DESC, n.key LIMIT toInteger($limit)
MATCH (n)<-[k:KNOWN_AS]-(e:Entity)
WITH n, entities, e, collect(k.memory_ids) AS claims
CALL (e) {
  OPTIONAL MATCH (e)-[r:CO_OCCURS]-(x:Entity)
  WITH x, max(r.count) AS count ORDER BY count DESC, x.canonical_name LIMIT 3
  RETURN collect(x.canonical_name) AS seen_with
}
WITH n, entities, e, seen_with,
     size(reduce(ids = [], c IN claims | ids + [i IN coalesce(c, []) WHERE NOT i IN ids])) AS called
ORDER BY e.mention_count DESC, e.canonical_name, e.id
RETURN n.text AS name, n.key AS name_key, entities,
       collect({id: e.id, name: e.canonical_name, type: e.type, mentions: e.mention_count,
                facts_with_this_name: called, seen_with: seen_with}) AS candidates
ORDER BY entities DESC, name_key
