// One audit record of entity repairs (merge, split or revert).
// params: $bank_id, $id
// mode: read
MATCH (rec:EntityMerge {bank_id: $bank_id, id: $id})
RETURN rec {.*} AS record
