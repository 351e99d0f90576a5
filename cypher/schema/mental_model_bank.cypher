// All MentalModel nodes of a bank (bank deletion, listing).
// params: none
// mode: schema
CREATE INDEX mental_model_bank IF NOT EXISTS FOR (n:MentalModel) ON (n.bank_id)
