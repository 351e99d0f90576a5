// Decide an open review as "same" (a merge folded the pair; its id recorded). A decided review
// is never reopened, and resolve/file_reviews never re-files its pair.
// params: $bank_id, $id, $merge_id, $reason, $by
// mode: write
MATCH (r:Review {bank_id: $bank_id, id: $id})
WHERE r.status = 'open'
SET r.status = 'same', r.merge_id = $merge_id, r.decided_at = datetime(),
    r.decided_by = $by, r.decision_reason = $reason
RETURN r.id AS id
