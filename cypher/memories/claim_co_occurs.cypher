// A fact (re)enters the active graph: each pair of its entities co-occurs once more (the edge is
// created when missing, from the smaller id to the larger, as retain does).
// params: $bank_id, $memory_ids (facts whose MENTIONS edges are in place)
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})-[:MENTIONS]->(a:Entity)
MATCH (m)-[:MENTIONS]->(b:Entity)
WHERE a.id < b.id
WITH a, b, count(DISTINCT m) AS n, min(m.mentioned_at) AS first, max(m.mentioned_at) AS last
MERGE (a)-[r:CO_OCCURS]->(b)
ON CREATE SET r.count = 0, r.first_at = first, r.last_at = last
SET r.count = r.count + n,
    r.first_at = CASE WHEN first < r.first_at THEN first ELSE r.first_at END,
    r.last_at = CASE WHEN last > r.last_at THEN last ELSE r.last_at END
RETURN count(r) AS pairs
