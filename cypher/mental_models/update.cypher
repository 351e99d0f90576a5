// Set properties of a mental model (settings from a PATCH, refresh status); the model after.
// params: $bank_id, $id, $props
// mode: write
MATCH (mm:MentalModel {bank_id: $bank_id, id: $id})
SET mm += $props, mm.updated_at = datetime()
RETURN mm {.*, embedding: null} AS model
