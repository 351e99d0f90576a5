// Give a bank's consolidation lease back (only $owner's own lease).
// params: $bank_id, $owner
// mode: write
MATCH (l:ConsolidationLease {bank_id: $bank_id})
WHERE l.owner = $owner
SET l.owner = null, l.expires_at = null
RETURN count(l) AS released
