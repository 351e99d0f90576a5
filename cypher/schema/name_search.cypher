// Fuzzy candidate retrieval over every name an entity has been called, scoped by bank.
// params: none
// mode: schema
CREATE FULLTEXT INDEX name_search IF NOT EXISTS
FOR (n:Name) ON EACH [n.text, n.bank_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}
