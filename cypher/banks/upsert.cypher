// Create a bank or update the fields sent.
// params: $bank_id, $props (fields to set; null removes), $defaults (used only on create)
// mode: write
MERGE (b:Bank {id: $bank_id})
ON CREATE SET b += $defaults, b.created_at = datetime(), b.is_new = true
SET b += $props, b.updated_at = datetime()
WITH b, coalesce(b.is_new, false) AS created
REMOVE b.is_new
RETURN b {.*} AS bank, created
