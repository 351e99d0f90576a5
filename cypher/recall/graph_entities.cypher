// Graph channel, shared entities, in one round trip:
// - the entities of every given fact (the seeds and the pool the other channels found);
// - for each entity reached (mentioned by a seed, or named in the query) whose facts all fit in
//   $fanout, those facts (recall-visible and passing the filters; a capped slice of a hub would
//   be arbitrary, so hubs count only for the facts already in the pool; the LIMIT only guards a
//   mention count that lags behind).
// One row with two lists: the Python driver spends ~50 µs per record, far more than per item.
// params: $bank_id, $ids, $seed_ids, $query_entity_ids, $fanout, $fact_types (list or null),
//   $tags (list or null), $tags_match
// mode: read
CALL () {
  UNWIND $ids AS id
  MATCH (m:Memory {bank_id: $bank_id, id: id})-[:MENTIONS]->(e:Entity)
  WITH m, collect({id: e.id, degree: coalesce(e.mention_count, 1)}) AS entities
  RETURN collect({fact_id: m.id, entities: entities}) AS facts
}
WITH facts,
     reduce(acc = [], f IN facts |
       CASE WHEN f.fact_id IN $seed_ids
            THEN acc + [e IN f.entities WHERE e.degree <= $fanout | e.id]
            ELSE acc END) + $query_entity_ids AS reached
CALL (reached) {
  UNWIND reached AS entity_id
  WITH DISTINCT entity_id
  MATCH (e:Entity {bank_id: $bank_id, id: entity_id})
  WHERE coalesce(e.mention_count, 1) <= $fanout
  CALL (e) {
    MATCH (e)<-[:MENTIONS]-(f:Memory)
    WHERE f.state = 'valid' AND coalesce(f.vector_pending, false) = false
      AND ($fact_types IS NULL OR f.fact_type IN $fact_types)
      AND ($tags IS NULL
        OR ($tags_match = 'any' AND (size(coalesce(f.tags, [])) = 0 OR any(t IN f.tags WHERE t IN $tags)))
        OR ($tags_match = 'any_strict' AND any(t IN coalesce(f.tags, []) WHERE t IN $tags))
        OR ($tags_match = 'all' AND (size(coalesce(f.tags, [])) = 0 OR all(t IN $tags WHERE t IN f.tags)))
        OR ($tags_match = 'all_strict' AND all(t IN $tags WHERE t IN coalesce(f.tags, [])))
        OR ($tags_match = 'exact' AND size(coalesce(f.tags, [])) = size($tags)
            AND all(t IN $tags WHERE t IN f.tags)))
    WITH f LIMIT $fanout
    RETURN collect(f.id) AS fanned
  }
  RETURN collect({entity_id: e.id, facts: fanned}) AS entities
}
RETURN facts, entities
