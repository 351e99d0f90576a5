// Candidate retrieval for entity resolution: every name an entity has been called, as folded
// word tokens (token and fuzzy queries) and as opaque lookup-key tokens (core name, compact
// form, acronym), scoped by the bank's token in the same index.
// params: none
// mode: schema
CREATE FULLTEXT INDEX entity_lookup IF NOT EXISTS
FOR (e:Entity) ON EACH [e.search_text, e.lookup_keys, e.bank_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'standard-no-stop-words'}}
