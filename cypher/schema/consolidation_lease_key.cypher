// One consolidation lease per bank (app/consolidate/worker.py); settles claim races (MERGE +
// constraint) and serves the bank lookup of the lease.
// params: none
// mode: schema
CREATE CONSTRAINT consolidation_lease_key IF NOT EXISTS
FOR (n:ConsolidationLease) REQUIRE n.bank_id IS UNIQUE
