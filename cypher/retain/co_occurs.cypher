// One CO_OCCURS edge per entity pair (stored from the smaller id to the larger), counting the
// facts that name both, with the earliest and latest of those facts' mention times.
// params: $bank_id, $pairs [{a, b, count, first, at}] with a < b (at: the latest)
// Times arrive as ISO 8601 text (app/store/graph.py cypher_datetime) and become datetimes here.
// mode: write
UNWIND $pairs AS p
WITH p, datetime(p.first) AS first, datetime(p.at) AS at
MATCH (a:Entity {bank_id: $bank_id, id: p.a})
MATCH (b:Entity {bank_id: $bank_id, id: p.b})
MERGE (a)-[r:CO_OCCURS]->(b)
ON CREATE SET r.count = 0, r.first_at = first, r.last_at = at
SET r.count = r.count + p.count,
    r.first_at = CASE WHEN first < r.first_at THEN first ELSE r.first_at END,
    r.last_at = CASE WHEN at > r.last_at THEN at ELSE r.last_at END
