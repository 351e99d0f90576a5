// Who holds a bank's consolidation lease (checked inside each consolidation write: a worker
// whose lease another worker took writes nothing).
// params: $bank_id
// mode: read
MATCH (l:ConsolidationLease {bank_id: $bank_id})
RETURN l.owner AS owner, l.expires_at AS expires_at
