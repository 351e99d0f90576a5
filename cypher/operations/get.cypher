// One operation of a bank.
// params: $bank_id, $id
// mode: read
MATCH (o:Operation {bank_id: $bank_id, id: $id})
RETURN o {.*, request_json: null} AS operation
