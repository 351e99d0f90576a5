// Decide an open review as "different": the two entities (as they are now) are recorded as
// different, which entity resolution reads as decided_apart and never proposes again.
// params: $bank_id, $id, $a, $b, $reason, $by
// mode: write
MATCH (r:Review {bank_id: $bank_id, id: $id})
WHERE r.status = 'open'
MATCH (a:Entity {bank_id: $bank_id, id: $a})
MATCH (b:Entity {bank_id: $bank_id, id: $b})
MERGE (a)-[d:DIFFERENT_FROM {review_id: r.id}]->(b)
ON CREATE SET d.at = datetime()
SET r.status = 'different', r.decided_at = d.at, r.decided_by = $by,
    r.decision_reason = $reason
RETURN r.id AS id
