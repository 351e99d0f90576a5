// Every API key, newest first, without hashes.
// params: none
// mode: read
MATCH (k:ApiKey)
RETURN k {.*, hash: null} AS key
ORDER BY k.created_at DESC, k.id
