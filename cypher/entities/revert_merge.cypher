// Revert merge $merge_id, first step: the absorbed entity is an :Entity again, the merge is
// marked reverted by a new audit record, and the two are recorded as different (a person undid
// the merge: re-evaluation must not redo it); the reviews that led to or were settled by the
// merge now say "different". The moved edges go back with entities/move_back.
// params: $bank_id, $merge_id, $revert_id, $reason, $by, $review_ids
// mode: write
MATCH (rec:EntityMerge {bank_id: $bank_id, id: $merge_id})
WHERE rec.kind = 'merge' AND rec.state = 'active'
MATCH (k:Entity {bank_id: $bank_id, id: rec.keep})
MATCH (g:MergedEntity {bank_id: $bank_id, id: rec.gone})
WHERE g.merge_id = rec.id
MATCH (bank:Bank {id: $bank_id})
SET bank.merge_seq = coalesce(bank.merge_seq, 0) + 1
REMOVE g:MergedEntity
SET g:Entity
REMOVE g.merged_into, g.merge_id
CREATE (rev:EntityMerge {bank_id: $bank_id, id: $revert_id})
SET rev.kind = 'revert', rev.reverts = rec.id, rev.reverts_kind = rec.kind,
    rev.keep = rec.keep, rev.keep_name = rec.keep_name, rev.gone = rec.gone,
    rev.gone_name = rec.gone_name, rev.reason = $reason, rev.by = $by, rev.state = 'active',
    rev.created_at = datetime(), rev.seq = bank.merge_seq
CREATE (rev)-[:REVERTS]->(rec)
SET rec.state = 'reverted', rec.reverted_by = rev.id, rec.reverted_at = rev.created_at
CREATE (k)-[:DIFFERENT_FROM {revert_id: rev.id, at: rev.created_at}]->(g)
WITH rec, rev
CALL (rec, rev) {
  UNWIND $review_ids AS rid
  MATCH (r:Review {bank_id: $bank_id, id: rid})
  WHERE r.merge_id = rec.id
  SET r.status = 'different', r.decided_at = rev.created_at, r.decided_by = $by,
      r.decision_reason = 'merge reverted: ' + $reason
}
RETURN rev.id AS revert_id
