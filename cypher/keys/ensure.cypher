// Store a configured key (MNEMO_ADMIN_KEY) unless its hash is already stored; a revoked one
// stays revoked.
// params: $key {id, hash, name, admin, banks, read_only}
// mode: write
MERGE (k:ApiKey {hash: $key.hash})
ON CREATE SET k = $key, k.created_at = datetime()
RETURN k {.*, hash: null} AS key
