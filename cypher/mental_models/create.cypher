// A new mental model of the bank (its page is written by the refresh operation that follows).
// No row when the bank does not exist or the id is taken.
// params: $bank_id, $id, $props
// mode: write
MATCH (b:Bank {id: $bank_id})
OPTIONAL MATCH (old:MentalModel {bank_id: $bank_id, id: $id})
WITH b, old WHERE old IS NULL
CREATE (mm:MentalModel {bank_id: $bank_id, id: $id})
SET mm += $props, mm.created_at = datetime(), mm.updated_at = datetime(), mm.version = 0
RETURN mm.id AS id
