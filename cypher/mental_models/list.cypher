// A bank's mental models, oldest first, one page, filtered by their tags with recall's tag
// semantics (app/domain/tags.py), and how many match in all.
// params: $bank_id, $tags (list or null), $tags_match, $offset, $limit
// mode: read
OPTIONAL MATCH (mm:MentalModel {bank_id: $bank_id})
WHERE $tags IS NULL
  OR ($tags_match = 'any' AND (size(coalesce(mm.tags, [])) = 0 OR any(t IN mm.tags WHERE t IN $tags)))
  OR ($tags_match = 'any_strict' AND any(t IN coalesce(mm.tags, []) WHERE t IN $tags))
  OR ($tags_match = 'all' AND (size(coalesce(mm.tags, [])) = 0 OR all(t IN $tags WHERE t IN mm.tags)))
  OR ($tags_match = 'all_strict' AND all(t IN $tags WHERE t IN coalesce(mm.tags, [])))
  OR ($tags_match = 'exact' AND size(coalesce(mm.tags, [])) = size($tags)
      AND all(t IN $tags WHERE t IN mm.tags))
WITH mm ORDER BY mm.created_at, mm.id
WITH collect(mm) AS found
RETURN size(found) AS total,
       [mm IN found[$offset..($offset + $limit)] | mm {.*, embedding: null}] AS items
