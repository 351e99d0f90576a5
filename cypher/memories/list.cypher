// One page of a bank's facts, newest first (created_at, then mentioned_at, descending; id
// ascending), as ids with their sort keys (memories/by_ids shapes them). The facts are read in
// the order of the (bank_id, created_at) index from the cursor's key on ($before, or the latest
// time), so a page costs its rows plus those a filter skips, never a sort of the whole bank.
// The cursor's key ($before, $after_mentioned, $after_id; null id: no cursor) is the last row
// of the previous page. Text and document filters go through memories/list_matches, and so
// does an entity named by few facts; $entity_id here is for a hub, whose facts fill a page
// within a few rows of the scan (sorting all of them would cost the hub's size).
// The order names bank_id first (constant here) so that the planner takes the composite index's
// order instead of sorting every row the seek finds.
// Tags (exact strings): any = overlaps or untagged; all = contains all or untagged; *_strict
// exclude untagged; exact = same set. Empty/null $tags: no tag filter.
// params: $bank_id, $before, $after_mentioned, $after_id, $types, $states, $document_id,
//   $entity_id, $tags, $tags_match, $consolidation_states, $offset, $limit (null filters are
//   off)
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
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
ORDER BY m.bank_id DESC, m.created_at DESC, mentioned DESC, m.id
SKIP $offset LIMIT $limit
RETURN m.id AS id, [toString(m.created_at), toString(mentioned), m.id] AS key
