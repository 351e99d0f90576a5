// All SecurityEvent nodes of a bank (the listing, and bank deletion).
// params: none
// mode: schema
CREATE INDEX security_event_bank IF NOT EXISTS FOR (n:SecurityEvent) ON (n.bank_id)
