// What deleting or reprocessing a document must undo: every fact it produced (any state, found
// by its document_id), whether each is valid, the entities each mentions (active
// or archived mentions) and each fact's mention time.
// params: $bank_id, $document_id
// mode: read
MATCH (m:Memory {bank_id: $bank_id, document_id: $document_id})
OPTIONAL MATCH (m)-[r:MENTIONS|ARCHIVED_LINK]->(e:Entity)
WHERE type(r) = 'MENTIONS' OR r.type = 'MENTIONS'
RETURN m.id AS id, m.state = 'valid' AS valid, m.mentioned_at AS mentioned_at,
       collect(DISTINCT e.id) AS entity_ids
