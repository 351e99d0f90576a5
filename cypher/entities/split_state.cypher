// Whether the entity a split created was touched since: facts mentioning it that the split did
// not move there, and reviews about it already decided (a revert would lose them).
// params: $bank_id, $id, $split_id
// mode: read
MATCH (n:Entity {bank_id: $bank_id, id: $id})
RETURN COUNT { (m:Memory)-[r:MENTIONS|ARCHIVED_LINK]->(n)
               WHERE (type(r) = 'MENTIONS' OR r.type = 'MENTIONS') AND NOT m:Observation
                 AND coalesce(r.merge_id, '') <> $split_id } AS foreign_mentions,
       COUNT { (n)<-[:ABOUT]-(r:Review) WHERE r.status <> 'open' } AS decided_reviews
