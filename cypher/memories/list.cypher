// One page of a bank's facts, newest first, with the total: ids only (memories/by_ids shapes
// them). Candidates come from the full-text index when $lucene is set (scoped by bank_key in
// the query itself), from the entity's mentions when $entity_id is set, from the bank otherwise;
// every other filter is applied before paging, so none loses hits.
// Tags (exact strings): any = overlaps or untagged; all = contains all or untagged; *_strict
// exclude untagged; exact = same set. Empty/null $tags: no tag filter.
// params: $bank_id, $lucene, $types, $states, $document_id, $entity_id, $tags, $tags_match,
//   $offset, $limit (null filters are off)
// mode: read
CALL () {
  UNWIND CASE WHEN $lucene IS NULL AND $entity_id IS NULL THEN [1] ELSE [] END AS _
  MATCH (m:Memory {bank_id: $bank_id})
  RETURN m
  UNION
  UNWIND CASE WHEN $lucene IS NULL THEN [] ELSE [$lucene] END AS lucene
  CALL db.index.fulltext.queryNodes('memory_search', lucene) YIELD node AS m
  WHERE m.bank_id = $bank_id
  RETURN m
  UNION
  UNWIND CASE WHEN $lucene IS NULL AND $entity_id IS NOT NULL THEN [1] ELSE [] END AS _
  MATCH (:Entity {bank_id: $bank_id, id: $entity_id})<-[r:MENTIONS|ARCHIVED_LINK]-(m:Memory)
  WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS'
  RETURN m
}
WITH m, coalesce(m.tags, []) AS tags
WHERE ($types IS NULL OR m.fact_type IN $types)
  AND ($states IS NULL OR m.state IN $states)
  AND ($document_id IS NULL OR m.document_id = $document_id)
  AND ($entity_id IS NULL OR EXISTS {
        MATCH (m)-[r:MENTIONS|ARCHIVED_LINK]->(:Entity {bank_id: $bank_id, id: $entity_id})
        WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS' })
  AND (coalesce(size($tags), 0) = 0 OR CASE $tags_match
        WHEN 'any' THEN size(tags) = 0 OR any(t IN tags WHERE t IN $tags)
        WHEN 'all' THEN size(tags) = 0 OR all(t IN $tags WHERE t IN tags)
        WHEN 'any_strict' THEN any(t IN tags WHERE t IN $tags)
        WHEN 'all_strict' THEN size(tags) > 0 AND all(t IN $tags WHERE t IN tags)
        WHEN 'exact' THEN all(t IN $tags WHERE t IN tags) AND all(t IN tags WHERE t IN $tags)
        ELSE false END)
WITH m ORDER BY m.created_at DESC, m.mentioned_at DESC, m.id
WITH collect(m.id) AS ids
RETURN size(ids) AS total, ids[$offset..($offset + $limit)] AS ids
