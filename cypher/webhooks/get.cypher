// One subscription of a bank.
// params: $bank_id, $id
// mode: read
MATCH (w:Webhook {bank_id: $bank_id, id: $id})
RETURN w {.*} AS webhook
