// How many facts match a listing's filters (memories/list and memories/list_matches): the
// API's total. It reads every candidate's properties (no sort, no ids kept); without filters
// memories/total answers from the index alone.
// params: $bank_id, $lucene, $entity_id, $types, $states, $document_id, $tags, $tags_match,
//   $consolidation_states (null filters are off)
// mode: read
CALL () {
  UNWIND CASE WHEN $lucene IS NULL AND $entity_id IS NULL AND $document_id IS NULL
              THEN [1] ELSE [] END AS _
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
  UNION
  UNWIND CASE WHEN $lucene IS NULL AND $entity_id IS NULL AND $document_id IS NOT NULL
              THEN [1] ELSE [] END AS _
  MATCH (m:Memory {bank_id: $bank_id, document_id: $document_id})
  RETURN m
}
WITH m
WHERE true
  AND ($types IS NULL OR m.fact_type IN $types)
  AND ($states IS NULL OR m.state IN $states)
  AND ($document_id IS NULL OR m.document_id = $document_id)
  AND ($consolidation_states IS NULL OR m.consolidation_state IN $consolidation_states)
  AND (coalesce(size($tags), 0) = 0 OR CASE $tags_match
        WHEN 'any' THEN size(coalesce(m.tags, [])) = 0 OR any(t IN m.tags WHERE t IN $tags)
        WHEN 'all' THEN size(coalesce(m.tags, [])) = 0 OR all(t IN $tags WHERE t IN m.tags)
        WHEN 'any_strict' THEN any(t IN coalesce(m.tags, []) WHERE t IN $tags)
        WHEN 'all_strict' THEN size(coalesce(m.tags, [])) > 0 AND all(t IN $tags WHERE t IN m.tags)
        WHEN 'exact' THEN all(t IN $tags WHERE t IN coalesce(m.tags, []))
                          AND all(t IN coalesce(m.tags, []) WHERE t IN $tags)
        ELSE false END)
  AND ($entity_id IS NULL OR EXISTS {
        MATCH (m)-[r:MENTIONS|ARCHIVED_LINK]->(:Entity {bank_id: $bank_id, id: $entity_id})
        WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS' })
RETURN count(m) AS total
