// Fold entity $gone into $keep, audited: its MENTIONS (active, and archived ones of invalidated
// facts), KNOWN_AS and DIFFERENT_FROM decisions move to $keep tagged with the merge id (so a
// revert can move exactly those back); a tag already on an edge (an earlier merge or split) is
// pushed onto merge_stack/moved_stack and popped again by the revert, so merges nest. Its
// co-occurrence edges go (they are recomputed from MENTIONS), and it stays as a :MergedEntity
// shell pointing at $keep. The bank's merge_seq orders audit records (the bank is locked).
// params: $bank_id, $merge_id, $keep, $gone, $reason, $by, $evidence_json, $review_id
// mode: write
MATCH (k:Entity {bank_id: $bank_id, id: $keep})
MATCH (g:Entity {bank_id: $bank_id, id: $gone})
MATCH (bank:Bank {id: $bank_id})
SET bank.merge_seq = coalesce(bank.merge_seq, 0) + 1
CREATE (rec:EntityMerge {bank_id: $bank_id, id: $merge_id})
SET rec.kind = 'merge', rec.keep = $keep, rec.gone = $gone, rec.reason = $reason,
    rec.by = $by, rec.evidence_json = $evidence_json, rec.review_id = $review_id,
    rec.state = 'active', rec.created_at = datetime(), rec.seq = bank.merge_seq,
    rec.keep_name = k.canonical_name, rec.gone_name = g.canonical_name
CREATE (rec)-[:KEPT]->(k)
CREATE (rec)-[:ABSORBED]->(g)
WITH k, g, rec
CALL (k, g, rec) {
  MATCH (m:Memory)-[r:MENTIONS]->(g)
  CREATE (m)-[moved:MENTIONS]->(k)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
CALL (k, g, rec) {
  MATCH (m:Memory)-[r:ARCHIVED_LINK {type: 'MENTIONS'}]->(g)
  CREATE (m)-[moved:ARCHIVED_LINK]->(k)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
CALL (k, g, rec) {
  MATCH (g)-[r:KNOWN_AS]->(n:Name)
  CREATE (k)-[moved:KNOWN_AS]->(n)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
// A decision "gone is not X" now holds for keep (which holds gone's facts); one between keep
// and gone stays on the shell, inert until a revert brings gone back.
CALL (k, g, rec) {
  MATCH (g)-[r:DIFFERENT_FROM]->(x:Entity)
  WHERE x <> k
  CREATE (k)-[moved:DIFFERENT_FROM]->(x)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
CALL (k, g, rec) {
  MATCH (g)<-[r:DIFFERENT_FROM]-(x:Entity)
  WHERE x <> k
  CREATE (k)<-[moved:DIFFERENT_FROM]-(x)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = g.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
CALL (g) {
  MATCH (g)-[r:CO_OCCURS]-()
  DELETE r
}
REMOVE g:Entity
SET g:MergedEntity, g.merged_into = k.id, g.merge_id = rec.id
RETURN rec.id AS merge_id
