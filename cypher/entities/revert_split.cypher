// Revert split $split_id, last step (entities/move_back has moved its mentions and claims back
// to the source): the audit record, then the split-off entity goes with its own claims, its
// open reviews and the Name nodes nobody else is known as.
// params: $bank_id, $split_id, $revert_id, $reason, $by
// mode: write
MATCH (rec:EntityMerge {bank_id: $bank_id, id: $split_id})
WHERE rec.kind = 'split' AND rec.state = 'active'
MATCH (n:Entity {bank_id: $bank_id, id: rec.created})
MATCH (bank:Bank {id: $bank_id})
SET bank.merge_seq = coalesce(bank.merge_seq, 0) + 1
CREATE (rev:EntityMerge {bank_id: $bank_id, id: $revert_id})
SET rev.kind = 'revert', rev.reverts = rec.id, rev.reverts_kind = rec.kind,
    rev.source = rec.source, rev.source_name = rec.source_name, rev.created = rec.created,
    rev.created_name = rec.created_name, rev.memory_ids = rec.memory_ids, rev.reason = $reason,
    rev.by = $by, rev.state = 'active', rev.created_at = datetime(), rev.seq = bank.merge_seq
CREATE (rev)-[:REVERTS]->(rec)
SET rec.state = 'reverted', rec.reverted_by = rev.id, rec.reverted_at = rev.created_at
WITH n, rev
CALL (n) {
  MATCH (n)<-[:ABOUT]-(r:Review {status: 'open'})
  DETACH DELETE r
}
WITH n, rev, [(n)-[:KNOWN_AS]->(nm:Name) | nm] AS names
DETACH DELETE n
WITH rev, names
CALL (names) {
  UNWIND names AS nm
  WITH DISTINCT nm
  WHERE NOT EXISTS { (nm)<-[:KNOWN_AS]-() }
  DELETE nm
}
RETURN rev.id AS revert_id
