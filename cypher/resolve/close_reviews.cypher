// Close the open reviews that involve entities a settle merged away ($gone): the question
// they asked has been answered by evidence; the reason says how.
// params: $bank_id, $gone, $reason
// mode: write
UNWIND $gone AS id
MATCH (r:Review {bank_id: $bank_id})-[:ABOUT]->(:MergedEntity {bank_id: $bank_id, id: id})
WHERE r.status = 'open'
SET r.status = 'different', r.decided_at = datetime(), r.decided_by = 'settle',
    r.decision_reason = $reason
RETURN count(r) AS closed
