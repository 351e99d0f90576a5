// For each new fact, the nearest valid facts (not observations) in event time on each side. Ordering by the whole
// (bank_id, occurred_start) index key lets Neo4j read the index in order and stop after $k;
// ordering by occurred_start alone sorts every fact of the bank (measured: 12k db hits vs 4).
// Times travel as ISO 8601 text both ways (app/store/graph.py cypher_datetime says why).
// params: $bank_id, $facts [{id, at}], $k
// mode: read
UNWIND $facts AS f
WITH f.id AS id, datetime(f.at) AS at
CALL (id, at) {
  MATCH (m:Memory {bank_id: $bank_id})
  WHERE m.occurred_start <= at AND m.state = 'valid' AND m.id <> id AND NOT m:Observation
  RETURN m ORDER BY m.bank_id DESC, m.occurred_start DESC LIMIT $k
  UNION
  MATCH (m:Memory {bank_id: $bank_id})
  WHERE m.occurred_start > at AND m.state = 'valid' AND m.id <> id AND NOT m:Observation
  RETURN m ORDER BY m.bank_id ASC, m.occurred_start ASC LIMIT $k
}
RETURN id AS source, m.id AS target, toString(m.occurred_start) AS at
