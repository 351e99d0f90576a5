// Graph channel, links: SEMANTIC and CAUSED_BY neighbours (either direction) of the given facts,
// at most $per_fact each (strongest first), recall-visible and passing the request's filters.
// $kinds names the relationship types to follow (those the recipe weighs above 0).
// One row with a list: the Python driver spends ~50 µs per record, far more than per list item.
// params: $bank_id, $ids, $kinds, $per_fact, $fact_types (list or null), $tags (list or null),
//   $tags_match
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})
CALL (m) {
  MATCH (m)-[r:SEMANTIC|CAUSED_BY]-(f:Memory)
  WHERE type(r) IN $kinds AND f.state = 'valid' AND coalesce(f.vector_pending, false) = false
    AND ($fact_types IS NULL OR f.fact_type IN $fact_types)
    AND ($tags IS NULL
      OR ($tags_match = 'any' AND (size(coalesce(f.tags, [])) = 0 OR any(t IN f.tags WHERE t IN $tags)))
      OR ($tags_match = 'any_strict' AND any(t IN coalesce(f.tags, []) WHERE t IN $tags))
      OR ($tags_match = 'all' AND (size(coalesce(f.tags, [])) = 0 OR all(t IN $tags WHERE t IN f.tags)))
      OR ($tags_match = 'all_strict' AND all(t IN $tags WHERE t IN coalesce(f.tags, [])))
      OR ($tags_match = 'exact' AND size(coalesce(f.tags, [])) = size($tags)
          AND all(t IN $tags WHERE t IN f.tags)))
  RETURN f.id AS target, type(r) AS kind, coalesce(r.weight, 1.0) AS weight
  ORDER BY weight DESC LIMIT $per_fact
}
RETURN collect({source: m.id, target: target, kind: kind, weight: weight}) AS links
