// How many operations a bank has.
// params: $bank_id
// mode: read
MATCH (o:Operation {bank_id: $bank_id})
RETURN count(o) AS total
