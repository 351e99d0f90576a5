// Change the fields sent on a subscription.
// params: $bank_id, $id, $props
// mode: write
MATCH (w:Webhook {bank_id: $bank_id, id: $id})
SET w += $props, w.updated_at = datetime()
RETURN w {.*} AS webhook
