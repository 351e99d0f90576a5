// Split entity $source: a new entity takes the mentions (active and archived) of $memory_ids
// and the name claims $claim_refs (made only by those facts), all tagged with the split id on
// top of any earlier tag (see resolve/merge_entities), so that a revert moves them back. The
// audit record keeps the trimmed claims' before-state; the source and the new entity are
// recorded as different when $decided (a person said so: re-evaluation must not fold them
// back); a settle's split is the resolver's own judgement, which later evidence may undo.
// $surfaces (memory id -> surfaces) narrows a memory listed there to the mentions written so:
// a settle parts two names of one fact that a first pass took for one thing ({} for none).
// params: $bank_id, $bank_key, $split_id, $source, $memory_ids, $surfaces, $claim_refs,
//   $reason, $by, $decided, $trims_json, $entity {id, canonical_name, name_key, first, last}
// mode: write
MATCH (s:Entity {bank_id: $bank_id, id: $source})
MATCH (bank:Bank {id: $bank_id})
SET bank.merge_seq = coalesce(bank.merge_seq, 0) + 1
CREATE (n:Entity {bank_id: $bank_id, id: $entity.id})
SET n.canonical_name = $entity.canonical_name, n.name_key = $entity.name_key, n.type = s.type,
    n.is_label = coalesce(s.is_label, false), n.mention_count = 0,
    n.first_seen = $entity.first, n.last_seen = $entity.last, n.created_at = datetime(),
    n.bank_key = $bank_key, n.search_text = '', n.lookup_keys = '', n.series = ''
CREATE (rec:EntityMerge {bank_id: $bank_id, id: $split_id})
SET rec.kind = 'split', rec.source = s.id, rec.source_name = s.canonical_name,
    rec.created = n.id, rec.created_name = n.canonical_name, rec.memory_ids = $memory_ids,
    rec.reason = $reason, rec.by = $by, rec.trims_json = $trims_json, rec.state = 'active',
    rec.created_at = datetime(), rec.seq = bank.merge_seq
CREATE (rec)-[:SPLIT_FROM]->(s)
CREATE (rec)-[:SPLIT_INTO]->(n)
FOREACH (_ IN CASE WHEN $decided THEN [1] ELSE [] END |
  CREATE (s)-[:DIFFERENT_FROM {split_id: rec.id, at: rec.created_at}]->(n))
WITH s, n, rec
CALL (s, n, rec) {
  UNWIND $memory_ids AS mid
  MATCH (m:Memory {bank_id: $bank_id, id: mid})-[r:MENTIONS]->(s)
  WHERE NOT mid IN keys($surfaces) OR r.mention IN $surfaces[mid]
  CREATE (m)-[moved:MENTIONS]->(n)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = s.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
CALL (s, n, rec) {
  UNWIND $memory_ids AS mid
  MATCH (m:Memory {bank_id: $bank_id, id: mid})-[r:ARCHIVED_LINK {type: 'MENTIONS'}]->(s)
  WHERE NOT mid IN keys($surfaces) OR r.mention IN $surfaces[mid]
  CREATE (m)-[moved:ARCHIVED_LINK]->(n)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = s.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
CALL (s, n, rec) {
  UNWIND $claim_refs AS ref
  MATCH (s)-[r:KNOWN_AS]->(nm:Name)
  WHERE elementId(r) = ref
  CREATE (n)-[moved:KNOWN_AS]->(nm)
  SET moved = properties(r), moved.merge_id = rec.id, moved.moved_from = s.id,
      moved.merge_stack = coalesce(r.merge_stack, []) + coalesce(r.merge_id, ''),
      moved.moved_stack = coalesce(r.moved_stack, []) + coalesce(r.moved_from, '')
  DELETE r
}
RETURN rec.id AS split_id
