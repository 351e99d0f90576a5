// Add a subscription to a bank (nothing when the bank does not exist).
// params: $bank_id, $id, $props
// mode: write
MATCH (b:Bank {id: $bank_id})
CREATE (w:Webhook {bank_id: $bank_id, id: $id})
SET w += $props, w.created_at = datetime(), w.updated_at = datetime()
RETURN w {.*} AS webhook
