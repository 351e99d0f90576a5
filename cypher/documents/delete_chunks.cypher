// Delete every chunk of a document (active and retired), once its facts are gone.
// params: $bank_id, $document_id
// mode: write
MATCH (:Document {bank_id: $bank_id, id: $document_id})<-[:PART_OF]-(c:Chunk)
DETACH DELETE c
RETURN count(*) AS deleted
