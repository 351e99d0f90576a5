// Store a new API key (its hash only; the key itself is never stored).
// ApiKey nodes are global, not inside a bank: a key lists the banks it may use.
// params: $key {id, hash, name, admin, banks, read_only}
// mode: write
CREATE (k:ApiKey)
SET k = $key, k.created_at = datetime()
RETURN k {.*, hash: null} AS key
