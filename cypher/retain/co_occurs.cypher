// One CO_OCCURS edge per entity pair (stored from the smaller id to the larger), counting the
// facts that name both, with the earliest and latest of those facts' mention times.
// params: $bank_id, $pairs [{a, b, count, first, at}] with a < b (at: the latest)
// mode: write
UNWIND $pairs AS p
MATCH (a:Entity {bank_id: $bank_id, id: p.a})
MATCH (b:Entity {bank_id: $bank_id, id: p.b})
MERGE (a)-[r:CO_OCCURS]->(b)
ON CREATE SET r.count = 0, r.first_at = p.first, r.last_at = p.at
SET r.count = r.count + p.count,
    r.first_at = CASE WHEN p.first < r.first_at THEN p.first ELSE r.first_at END,
    r.last_at = CASE WHEN p.at > r.last_at THEN p.at ELSE r.last_at END
