// Observations that share entities with each given fact (most shared first, at most $per_fact),
// through entities named by at most $fanout facts: a hub (the user, a company everyone works
// for) would offer every observation of the bank and tell nothing.
// params: $bank_id, $ids, $per_fact, $fanout
// mode: read
UNWIND $ids AS id
MATCH (f:Memory {bank_id: $bank_id, id: id})
CALL (f) {
  MATCH (f)-[:MENTIONS]->(e:Entity)<-[:MENTIONS]-(o:Observation)
  WHERE o.state = 'valid' AND coalesce(e.mention_count, 0) <= $fanout
  WITH o, count(DISTINCT e) AS shared
  ORDER BY shared DESC, o.updated_at DESC, o.id
  LIMIT $per_fact
  RETURN collect(o.id) AS observations
}
RETURN f.id AS id, observations
