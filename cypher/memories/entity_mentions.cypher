// How many facts name an entity (its stored count): whether listing its facts should sort
// them (few) or scan the bank's newest facts for them (a hub). Null when it is not in the bank.
// params: $bank_id, $entity_id
// mode: read
MATCH (e:Entity {bank_id: $bank_id, id: $entity_id})
RETURN e.mention_count AS mentions
