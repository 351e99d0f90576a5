// Seed co-occurrence edges in bulk (imports, scale benchmarks), from the smaller id to the
// larger as retain writes them.
// params: $bank_id, $pairs [{a, b, count, first, last}] with a < b
// mode: write
UNWIND $pairs AS p
MATCH (a:Entity {bank_id: $bank_id, id: p.a})
MATCH (b:Entity {bank_id: $bank_id, id: p.b})
CREATE (a)-[:CO_OCCURS {count: p.count, first_at: p.first, last_at: p.last}]->(b)
RETURN count(*) AS pairs
