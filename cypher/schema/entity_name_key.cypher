// Exact normalised-name lookup of entities (candidate retrieval).
// params: none
// mode: schema
CREATE INDEX entity_name_key IF NOT EXISTS FOR (e:Entity) ON (e.bank_id, e.name_key)
