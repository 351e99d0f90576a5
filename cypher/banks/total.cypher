// How many banks exist.
// params: none
// mode: read
MATCH (b:Bank)
RETURN count(b) AS total
