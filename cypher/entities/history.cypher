// Audit records of entity repairs, newest first, with the total; filters: kind, and an entity
// the record is about (kept, absorbed, split from or split into).
// params: $bank_id, $kind, $entity_id, $offset, $limit (null filters are off)
// mode: read
MATCH (rec:EntityMerge {bank_id: $bank_id})
WHERE ($kind IS NULL OR rec.kind = $kind)
  AND ($entity_id IS NULL OR $entity_id IN [x IN [rec.keep, rec.gone, rec.source, rec.created]
                                          WHERE x IS NOT NULL])
WITH rec ORDER BY coalesce(rec.seq, 0) DESC, rec.created_at DESC, rec.id
WITH collect(rec) AS found
RETURN size(found) AS total, [r IN found[$offset..($offset + $limit)] | r {.*}] AS items
