// Facts stop supporting the observations derived from them (invalidated, edited or deleted):
// their DERIVED_FROM edges go, and each affected observation's proof_count becomes the number
// of its distinct valid sources. Returns, per affected observation, its sources before and
// after and the counts, so that the caller records the revision and retracts the observations
// left without a valid source (observations/retract).
// params: $bank_id, $memory_ids, $at
// mode: write
UNWIND $memory_ids AS id
MATCH (o:Observation {bank_id: $bank_id})-[d:DERIVED_FROM]->(:Memory {bank_id: $bank_id, id: id})
WITH o, collect(d) AS links
WITH o, links, [(o)-[:DERIVED_FROM]->(s:Memory) | s.id] AS before, o.proof_count AS before_count
FOREACH (d IN links | DELETE d)
WITH o, before, before_count
CALL (o) {
  OPTIONAL MATCH (o)-[:DERIVED_FROM]->(s:Memory)
  WITH s ORDER BY s.id
  RETURN collect(s.id) AS after, count(CASE WHEN s.state = 'valid' THEN 1 END) AS valid
}
SET o.proof_count = valid, o.updated_at = $at
RETURN o.id AS id, o.state AS state, before, after, coalesce(before_count, 0) AS before_count,
       valid AS after_count
