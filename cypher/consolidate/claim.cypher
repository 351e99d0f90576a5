// Claim (or renew) a bank's consolidation lease for $owner until $until: granted when the lease
// is free, expired or already $owner's. The write lock is taken first (SET touched), so two
// workers claiming at once see each other's commit and only one wins.
// params: $bank_id, $owner, $now, $until
// mode: write
MATCH (b:Bank {id: $bank_id})
MERGE (l:ConsolidationLease {bank_id: $bank_id})
SET l.touched = $now
WITH l
WHERE l.owner IS NULL OR l.owner = $owner OR l.expires_at <= $now
SET l.owner = $owner, l.expires_at = $until, l.claimed_at = coalesce(
      CASE WHEN l.owner = $owner THEN l.claimed_at END, $now)
RETURN l.owner AS owner
