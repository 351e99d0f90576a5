// One page of banks ordered by id.
// params: $limit, $offset
// mode: read
MATCH (b:Bank)
WITH b ORDER BY b.id SKIP $offset LIMIT $limit
RETURN b {.*} AS bank
