// Reflect's get_entity tool: one entity of the bank, its names, the entities it most often
// appears with, and its most recent recall-visible memories that pass the request's filters.
// params: $bank_id, $id, $limit, $fact_types (list or null), $tags (list or null), $tags_match
// mode: read
MATCH (e:Entity {bank_id: $bank_id, id: $id})
CALL (e) {
  OPTIONAL MATCH (e)-[r:CO_OCCURS]-(o:Entity)
  WITH o, r ORDER BY r.count DESC, o.canonical_name LIMIT 8
  RETURN collect(CASE WHEN o IS NULL THEN null ELSE o.canonical_name END) AS related
}
CALL (e) {
  OPTIONAL MATCH (f:Memory)-[:MENTIONS]->(e)
  WHERE f.state = 'valid' AND coalesce(f.vector_pending, false) = false
    AND ($fact_types IS NULL OR f.fact_type IN $fact_types)
    AND ($tags IS NULL
      OR ($tags_match = 'any' AND (size(coalesce(f.tags, [])) = 0 OR any(t IN f.tags WHERE t IN $tags)))
      OR ($tags_match = 'any_strict' AND any(t IN coalesce(f.tags, []) WHERE t IN $tags))
      OR ($tags_match = 'all' AND (size(coalesce(f.tags, [])) = 0 OR all(t IN $tags WHERE t IN f.tags)))
      OR ($tags_match = 'all_strict' AND all(t IN $tags WHERE t IN coalesce(f.tags, [])))
      OR ($tags_match = 'exact' AND size(coalesce(f.tags, [])) = size($tags)
          AND all(t IN $tags WHERE t IN f.tags)))
  WITH f ORDER BY coalesce(f.occurred_start, f.mentioned_at) DESC, f.id LIMIT $limit
  RETURN collect(f.id) AS memory_ids
}
RETURN e.id AS id, e.canonical_name AS name, coalesce(e.type, '') AS type,
       coalesce(e.mention_count, 0) AS mention_count,
       [(e)-[:KNOWN_AS]->(n:Name) | n.text] AS names, related, memory_ids
