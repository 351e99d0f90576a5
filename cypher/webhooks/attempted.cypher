// Record one delivery attempt: its outcome and, while retries remain, when the next one runs.
// params: $bank_id, $id, $status, $attempts, $error, $response_status, $response_body,
//   $next_retry_at
// mode: write
MATCH (x:WebhookDelivery {bank_id: $bank_id, id: $id})
SET x.status = $status, x.attempts = $attempts, x.last_error = $error,
    x.last_response_status = $response_status, x.last_response_body = $response_body,
    x.next_retry_at = CASE WHEN $next_retry_at IS NULL THEN null
                           ELSE datetime($next_retry_at) END,
    x.last_attempt_at = datetime(), x.updated_at = datetime()
RETURN x.id AS id
