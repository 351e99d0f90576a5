// The enabled subscriptions of a bank that want this event type (an empty list: every type).
// params: $bank_id, $event_type
// mode: read
MATCH (w:Webhook {bank_id: $bank_id})
WHERE w.enabled AND (size(coalesce(w.event_types, [])) = 0 OR $event_type IN w.event_types)
RETURN w {.*} AS webhook
