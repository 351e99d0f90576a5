// Which of $ids a settle must leave as they are: entities a person told apart from another
// (DIFFERENT_FROM: a review "different", a split, a merge's revert), or merged or split
// through the API or a review (an active record by "api" or "review" involving them).
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
MATCH (e:Entity {bank_id: $bank_id, id: id})
WHERE EXISTS { (e)-[:DIFFERENT_FROM]-(:Entity) }
   OR EXISTS {
     MATCH (rec:EntityMerge)-[:KEPT|ABSORBED|SPLIT_FROM|SPLIT_INTO]->(e)
     WHERE rec.state = 'active' AND rec.by IN ['api', 'review']
   }
RETURN e.id AS id
