// Create or update documents with their original text and the item fields needed to
// reprocess them later (timestamp, caller entities, resolve_entities).
// params: $bank_id, $documents [{id, content_hash, original_text, tags, metadata_json, context,
//   timestamp, entities_json, resolve_entities}]
// mode: write
UNWIND $documents AS doc
MERGE (d:Document {bank_id: $bank_id, id: doc.id})
ON CREATE SET d.created_at = datetime()
SET d.content_hash = doc.content_hash, d.original_text = doc.original_text,
    d.tags = doc.tags, d.metadata_json = doc.metadata_json, d.context = doc.context,
    d.timestamp = doc.timestamp, d.entities_json = doc.entities_json,
    d.resolve_entities = doc.resolve_entities, d.updated_at = datetime()
