// One page of the facts a text search ($lucene, scoped by bank_key in the query itself), an
// entity ($entity_id: the facts that mention it, archived mentions included) or a document
// ($document_id, through the (bank_id, document_id) index) finds, the first given, newest
// first, as ids with their sort keys, with the same filters, order and cursor as
// memories/list. The matches are sorted, so a page costs what the search finds, not the bank.
// params: $bank_id, $lucene, $entity_id, $before, $after_mentioned, $after_id, $types,
//   $states, $document_id, $tags, $tags_match, $consolidation_states, $offset, $limit
// mode: read
CALL () {
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
WHERE m.created_at <= datetime($before)
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
  AND ($after_id IS NULL OR m.created_at < datetime($before)
       OR coalesce(m.mentioned_at, datetime('0001-01-01T00:00:00Z')) < datetime($after_mentioned)
       OR (coalesce(m.mentioned_at, datetime('0001-01-01T00:00:00Z')) = datetime($after_mentioned)
           AND m.id > $after_id))
WITH m, coalesce(m.mentioned_at, datetime('0001-01-01T00:00:00Z')) AS mentioned
ORDER BY m.created_at DESC, mentioned DESC, m.id
SKIP $offset LIMIT $limit
RETURN m.id AS id, [toString(m.created_at), toString(mentioned), m.id] AS key
