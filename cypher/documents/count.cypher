// How many of a bank's documents produced no fact ($empty = true) or some (false): the API's
// total for a filtered listing, which reads each document's fact count; without the filter
// documents/total answers from the index alone.
// params: $bank_id, $empty
// mode: read
MATCH (d:Document {bank_id: $bank_id})
WITH d, EXISTS { MATCH (m:Memory {bank_id: $bank_id, document_id: d.id}) } AS produced
WHERE produced <> $empty
RETURN count(d) AS total
