// Uniqueness of SecurityEvent ids within a bank.
// params: none
// mode: schema
CREATE CONSTRAINT security_event_key IF NOT EXISTS FOR (n:SecurityEvent) REQUIRE (n.bank_id, n.id) IS UNIQUE
