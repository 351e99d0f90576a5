// Graph channel, shared entities: for each reached entity, at most $fanout of the recall-visible
// facts that mention it, newest mention first (the cap keeps a hub such as "user" from
// flooding the channel; filters run before the LIMIT so they never lose hits).
// params: $bank_id, $entity_ids, $fanout, $fact_types (list or null), $tags (list or null),
//   $tags_match
// mode: read
UNWIND $entity_ids AS entity_id
MATCH (e:Entity {bank_id: $bank_id, id: entity_id})
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
  WITH f ORDER BY f.mentioned_at DESC LIMIT $fanout
  RETURN collect(f.id) AS facts
}
RETURN e.id AS entity_id, coalesce(e.mention_count, 1) AS degree, facts
