// Whether a bank exists (no counts: checked on every bank-scoped request).
// params: $bank_id
// mode: read
MATCH (b:Bank {id: $bank_id})
RETURN b.id AS id
