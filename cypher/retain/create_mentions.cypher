// MENTIONS edges (surface text kept) and the entities' counts and first/last seen.
// params: $bank_id, $mentions [{memory_id, entity_id, mention, at}]
// mode: write
UNWIND $mentions AS r
MATCH (m:Memory {bank_id: $bank_id, id: r.memory_id})
MATCH (e:Entity {bank_id: $bank_id, id: r.entity_id})
CREATE (m)-[:MENTIONS {mention: r.mention}]->(e)
SET e.mention_count = e.mention_count + 1,
    e.first_seen = CASE WHEN r.at < e.first_seen THEN r.at ELSE e.first_seen END,
    e.last_seen = CASE WHEN r.at > e.last_seen THEN r.at ELSE e.last_seen END
