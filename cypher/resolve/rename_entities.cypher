// Set the canonical name of entities (a merge survivor takes the fuller of the two names).
// params: $bank_id, $entities [{id, canonical_name, name_key}]
// mode: write
UNWIND $entities AS ent
MATCH (e:Entity {bank_id: $bank_id, id: ent.id})
SET e.canonical_name = ent.canonical_name, e.name_key = ent.name_key
