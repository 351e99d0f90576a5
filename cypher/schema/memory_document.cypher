// Facts of a document (upsert, delete, reprocess).
// params: none
// mode: schema
CREATE INDEX memory_document IF NOT EXISTS FOR (m:Memory) ON (m.bank_id, m.document_id)
