// MENTIONS edges, one per surface text a fact used for an entity, and the entities' counts and
// first/last seen (counted once per fact).
// params: $bank_id, $mentions [{memory_id, entity_id, surfaces, at}]
// Times arrive as ISO 8601 text (app/store/graph.py cypher_datetime) and become datetimes here.
// mode: write
UNWIND $mentions AS r
WITH r, datetime(r.at) AS at
MATCH (m:Memory {bank_id: $bank_id, id: r.memory_id})
MATCH (e:Entity {bank_id: $bank_id, id: r.entity_id})
FOREACH (surface IN r.surfaces | CREATE (m)-[:MENTIONS {mention: surface}]->(e))
SET e.mention_count = e.mention_count + 1,
    e.first_seen = CASE WHEN at < e.first_seen THEN at ELSE e.first_seen END,
    e.last_seen = CASE WHEN at > e.last_seen THEN at ELSE e.last_seen END
