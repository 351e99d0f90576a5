// All MentalModelVersion nodes of a bank (bank deletion, listing).
// params: none
// mode: schema
CREATE INDEX mental_model_version_bank IF NOT EXISTS FOR (n:MentalModelVersion) ON (n.bank_id)
