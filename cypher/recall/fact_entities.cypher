// The entities each given fact mentions, with each entity's degree (facts that mention it).
// Graph channel: the seeds' entities, and which candidate facts share them.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (m:Memory {bank_id: $bank_id, id: id})-[:MENTIONS]->(e:Entity)
RETURN m.id AS fact_id, collect({id: e.id, degree: coalesce(e.mention_count, 1)}) AS entities
