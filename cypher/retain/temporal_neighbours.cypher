// For each new fact, the nearest valid facts in event time on each side (index-backed order).
// params: $bank_id, $facts [{id, at}], $k
// mode: read
UNWIND $facts AS f
CALL (f) {
  MATCH (m:Memory {bank_id: $bank_id})
  WHERE m.occurred_start <= f.at AND m.state = 'valid' AND m.id <> f.id
  RETURN m ORDER BY m.occurred_start DESC LIMIT $k
  UNION
  MATCH (m:Memory {bank_id: $bank_id})
  WHERE m.occurred_start > f.at AND m.state = 'valid' AND m.id <> f.id
  RETURN m ORDER BY m.occurred_start ASC LIMIT $k
}
RETURN f.id AS source, m.id AS target, m.occurred_start AS at
