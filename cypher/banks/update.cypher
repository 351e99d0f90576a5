// Update the fields sent on an existing bank; no row when it does not exist (never creates one:
// a bank deleted meanwhile stays deleted).
// params: $bank_id, $props (fields to set; null removes)
// mode: write
MATCH (b:Bank {id: $bank_id})
SET b += $props, b.updated_at = datetime()
RETURN b {.*} AS bank, false AS created
