// Every observation of a bank (any state): what DELETE .../banks/{id}/observations removes.
// params: $bank_id
// mode: read
MATCH (o:Observation {bank_id: $bank_id})
RETURN o.id AS id
