// One bank's properties.
// params: $bank_id
// mode: read
MATCH (b:Bank {id: $bank_id})
RETURN b {.*} AS bank
