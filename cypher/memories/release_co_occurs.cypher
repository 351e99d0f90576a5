// A fact leaves the active graph: each CO_OCCURS edge between two of its entities loses exactly
// what the fact contributed (one per fact); an edge left at zero is deleted. first_at/last_at
// are recomputed from the remaining valid facts only when a leaving fact held the extreme.
// Edges are stored from the smaller entity id to the larger (as retain writes them).
// params: $bank_id, $memory_ids (facts still holding their MENTIONS edges)
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})-[:MENTIONS]->(a:Entity)
MATCH (m)-[:MENTIONS]->(b:Entity)
WHERE a.id < b.id
WITH a, b, count(DISTINCT m) AS n, collect(m.mentioned_at) AS ats
MATCH (a)-[r:CO_OCCURS]->(b)
WITH a, b, r, ats, r.count - n AS left
FOREACH (_ IN CASE WHEN left <= 0 THEN [1] ELSE [] END | DELETE r)
WITH a, b, r, ats, left
WHERE left > 0
SET r.count = left
WITH a, b, r, ats
WHERE r.first_at IN ats OR r.last_at IN ats
CALL (a, b) {
  OPTIONAL MATCH (a)<-[:MENTIONS]-(o:Memory)-[:MENTIONS]->(b)
  WHERE o.state = 'valid' AND NOT o.id IN $memory_ids AND NOT o:Observation
  RETURN min(o.mentioned_at) AS first, max(o.mentioned_at) AS last
}
SET r.first_at = coalesce(first, r.first_at), r.last_at = coalesce(last, r.last_at)
RETURN count(r) AS recomputed
