// What reprocessing a document needs to retain it again: its text, item fields, and the
// mention time of its facts (the item timestamp, for documents stored before `timestamp` was).
// params: $bank_id, $document_id
// mode: read
MATCH (d:Document {bank_id: $bank_id, id: $document_id})
CALL (d) {
  OPTIONAL MATCH (m:Memory {bank_id: $bank_id, document_id: d.id})
  RETURN min(m.mentioned_at) AS mentioned_at
}
RETURN d {.id, .original_text, .tags, .metadata_json, .context, .timestamp, .entities_json,
          .resolve_entities} AS document, mentioned_at
