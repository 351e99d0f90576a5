// What a merge, split or review decision checks of each id: the entity, or the shell it left
// when it was merged away (with the entity and merge it went into). Unknown ids give nulls.
// params: $bank_id, $ids
// mode: read
UNWIND $ids AS id
OPTIONAL MATCH (e:Entity {bank_id: $bank_id, id: id})
OPTIONAL MATCH (g:MergedEntity {bank_id: $bank_id, id: id})
RETURN id,
       e {.id, .canonical_name, .name_key, .type, .mention_count, .first_seen, .last_seen,
          is_label: coalesce(e.is_label, false)} AS entity,
       g.merged_into AS merged_into, g.merge_id AS merge_id
