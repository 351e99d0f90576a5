// The key whose hash this is, unless revoked.
// params: $hash
// mode: read
MATCH (k:ApiKey {hash: $hash})
WHERE k.revoked_at IS NULL
RETURN k {.*, hash: null} AS key
