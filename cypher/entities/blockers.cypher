// Active merges and splits recorded after record $id that involve one of $ids (the entities
// it kept, absorbed, split from or split into): they must be reverted first, newest first.
// params: $bank_id, $id, $seq, $ids
// mode: read
UNWIND $ids AS eid
CALL (eid) {
  MATCH (x:Entity {bank_id: $bank_id, id: eid})
  RETURN x
  UNION
  MATCH (x:MergedEntity {bank_id: $bank_id, id: eid})
  RETURN x
}
MATCH (x)<-[:KEPT|ABSORBED|SPLIT_FROM|SPLIT_INTO]-(later:EntityMerge)
WHERE later.state = 'active' AND later.id <> $id AND coalesce(later.seq, 0) > $seq
WITH DISTINCT later
RETURN later {.id, .kind, .seq, .created_at} AS record
ORDER BY record.seq DESC
