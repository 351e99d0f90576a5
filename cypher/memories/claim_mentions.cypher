// A fact (re)enters the active graph (restored, or its mentions rewritten): its entities count
// its mention again and widen first_seen/last_seen to its mention time.
// params: $bank_id, $memory_ids (facts whose MENTIONS edges are in place)
// mode: write
UNWIND $memory_ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})-[:MENTIONS]->(e:Entity)
WITH e, count(DISTINCT m) AS n, min(m.mentioned_at) AS first, max(m.mentioned_at) AS last
SET e.mention_count = coalesce(e.mention_count, 0) + n,
    e.first_seen = CASE WHEN e.first_seen IS NULL OR first < e.first_seen
                        THEN first ELSE e.first_seen END,
    e.last_seen = CASE WHEN e.last_seen IS NULL OR last > e.last_seen
                       THEN last ELSE e.last_seen END
RETURN count(e) AS entities
