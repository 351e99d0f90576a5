// New entities decided by the resolver.
// params: $bank_id, $entities [{id, canonical_name, name_key, type, is_label, at}]
// mode: write
UNWIND $entities AS ent
CREATE (e:Entity {bank_id: $bank_id, id: ent.id})
SET e.canonical_name = ent.canonical_name, e.name_key = ent.name_key, e.type = ent.type,
    e.is_label = ent.is_label, e.mention_count = 0, e.first_seen = ent.at,
    e.last_seen = ent.at, e.created_at = datetime()
