// All Observation memories of a bank (reflect asks whether a bank has any before recalling them).
// params: none
// mode: schema
CREATE INDEX observation_bank IF NOT EXISTS FOR (n:Observation) ON (n.bank_id)
