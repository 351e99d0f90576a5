// One page of a bank's reviews (newest first) as ids, with the total; reviews/by_ids shapes them.
// params: $bank_id, $status (null: every status), $offset, $limit
// mode: read
MATCH (r:Review {bank_id: $bank_id})
WHERE $status IS NULL OR r.status = $status
WITH r ORDER BY r.created_at DESC, r.id
WITH collect(r.id) AS ids
RETURN size(ids) AS total, ids[$offset..($offset + $limit)] AS ids
