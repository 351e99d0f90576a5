// Create new chunks and renumber kept ones, each PART_OF its document.
// params: $bank_id, $chunks [{id, document_id, index, text, content_hash}]
// mode: write
UNWIND $chunks AS ch
MATCH (d:Document {bank_id: $bank_id, id: ch.document_id})
MERGE (c:Chunk {bank_id: $bank_id, id: ch.id})
ON CREATE SET c.document_id = ch.document_id, c.text = ch.text,
              c.content_hash = ch.content_hash, c.created_at = datetime()
SET c.index = ch.index
MERGE (c)-[:PART_OF]->(d)
