// Reflect's expand tool: the memories linked to one memory of the bank (same meaning, cause or
// effect, close in time), strongest link first, recall-visible and passing the request's
// filters. No row when the memory is not a memory of this bank.
// params: $bank_id, $id, $limit, $fact_types (list or null), $tags (list or null), $tags_match
// mode: read
MATCH (m:Memory {bank_id: $bank_id, id: $id})
CALL (m) {
  OPTIONAL MATCH (m)-[r:SEMANTIC|CAUSED_BY|TEMPORAL]-(f:Memory)
  WHERE f.state = 'valid' AND coalesce(f.vector_pending, false) = false
    AND ($fact_types IS NULL OR f.fact_type IN $fact_types)
    AND ($tags IS NULL
      OR ($tags_match = 'any' AND (size(coalesce(f.tags, [])) = 0 OR any(t IN f.tags WHERE t IN $tags)))
      OR ($tags_match = 'any_strict' AND any(t IN coalesce(f.tags, []) WHERE t IN $tags))
      OR ($tags_match = 'all' AND (size(coalesce(f.tags, [])) = 0 OR all(t IN $tags WHERE t IN f.tags)))
      OR ($tags_match = 'all_strict' AND all(t IN $tags WHERE t IN coalesce(f.tags, [])))
      OR ($tags_match = 'exact' AND size(coalesce(f.tags, [])) = size($tags)
          AND all(t IN $tags WHERE t IN f.tags)))
  WITH f, r ORDER BY coalesce(r.weight, 1.0) DESC, f.id
  WITH f, collect(type(r))[0] AS kind, max(coalesce(r.weight, 1.0)) AS weight
  ORDER BY weight DESC, f.id LIMIT $limit
  RETURN collect(CASE WHEN f IS NULL THEN null ELSE {id: f.id, kind: kind, weight: weight} END)
         AS links
}
RETURN m.id AS id, links
