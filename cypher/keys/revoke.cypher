// Revoke a key by id (kept, marked, so that the audit trail shows it); no row when unknown.
// params: $id
// mode: write
MATCH (k:ApiKey {id: $id})
SET k.revoked_at = coalesce(k.revoked_at, datetime())
RETURN k {.*, hash: null} AS key
