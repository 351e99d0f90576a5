// Whether the bank holds any valid observation: reflect skips recalling observations (a whole
// recall) in a bank that has none.
// params: $bank_id
// mode: read
RETURN EXISTS {
  MATCH (m:Observation {bank_id: $bank_id})
  WHERE m.state = 'valid'
} AS found
