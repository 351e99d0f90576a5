// Entities' types as their mentions now say them (app/resolve/entity_types.py).
// params: $bank_id, $entities [{id, type}]
// mode: write
UNWIND $entities AS ent
MATCH (e:Entity {bank_id: $bank_id, id: ent.id})
SET e.type = ent.type
