// How many recall-visible facts a bank holds (the denominator of an entity's share, which
// decides whether a name in the query is too common to steer the vector channel).
// params: $bank_id
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
WHERE m.state = 'valid'
RETURN count(m) AS facts
