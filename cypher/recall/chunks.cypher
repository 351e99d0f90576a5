// The chunks the recalled facts came from (recall's include.chunks), in the order asked.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (c:Chunk {bank_id: $bank_id, id: id})
RETURN c.id AS id, c.text AS text, coalesce(c.index, 0) AS chunk_index,
       c.document_id AS document_id
