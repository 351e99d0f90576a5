// A bank's tags with how many valid memories carry each, most used first, one page; `$q`
// keeps the tags that contain it (case-insensitive), null keeps all.
// params: $bank_id, $q, $limit, $offset
// mode: read
MATCH (m:Memory {bank_id: $bank_id})
WHERE m.state = 'valid'
UNWIND coalesce(m.tags, []) AS tag
WITH tag, count(*) AS n
WHERE $q IS NULL OR toLower(tag) CONTAINS toLower($q)
WITH tag, n ORDER BY n DESC, tag
WITH collect({tag: tag, count: n}) AS tags
RETURN size(tags) AS total, tags[$offset..$offset + $limit] AS items
