// Every bank id.
// params: none
// mode: read
MATCH (b:Bank)
RETURN b.id AS id ORDER BY id
