// Documents that produced no memory: no fact at all (extraction found nothing to keep, e.g. a
// too-short or off-mission text), or only invalidated ones (invalidated_facts > 0). Those with
// none first, then newest first, with the start of their text.
// params: $bank_id, $limit = 50
// mode: read
MATCH (d:Document {bank_id: $bank_id})
CALL (d) {
  OPTIONAL MATCH (m:Memory {bank_id: $bank_id, document_id: d.id})
  RETURN count(m) AS facts, count(CASE WHEN m.state = 'valid' THEN 1 END) AS valid_facts
}
WITH d, facts WHERE valid_facts = 0
ORDER BY facts, d.created_at DESC, d.id
LIMIT toInteger($limit)
RETURN d.id AS id, facts AS invalidated_facts, d.created_at AS created_at,
       d.timestamp AS timestamp, size(d.original_text) AS text_length,
       left(d.original_text, 120) AS preview
