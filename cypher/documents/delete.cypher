// Delete a document node once its facts and chunks are gone.
// params: $bank_id, $document_id
// mode: write
MATCH (d:Document {bank_id: $bank_id, id: $document_id})
DETACH DELETE d
RETURN count(*) AS deleted
