// A bank's documents newest first (documents/list reads them in this index's order).
// params: none
// mode: schema
CREATE INDEX document_created IF NOT EXISTS FOR (d:Document) ON (d.bank_id, d.created_at)
