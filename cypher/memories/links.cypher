// A fact's links to other facts of its bank, the strongest $limit of each kind: TEMPORAL,
// SEMANTIC and CAUSED_BY in either direction. An invalidated fact's links are archived
// (ARCHIVED_LINK keeps the kind in its type property) and are listed under their kind.
// params: $bank_id, $memory_id, $limit
// mode: read
MATCH (m:Memory {bank_id: $bank_id, id: $memory_id})
MATCH (m)-[r:TEMPORAL|SEMANTIC|CAUSED_BY|ARCHIVED_LINK]-(o:Memory {bank_id: $bank_id})
WITH m, r, o, CASE type(r) WHEN 'ARCHIVED_LINK' THEN r.type ELSE type(r) END AS kind
WHERE kind IN ['TEMPORAL', 'SEMANTIC', 'CAUSED_BY']
WITH kind, r, o, startNode(r) = m AS outgoing
ORDER BY coalesce(r.weight, 0.0) DESC, o.id
WITH kind, collect({id: o.id, text: o.text, state: o.state, weight: r.weight,
                    outgoing: outgoing, archived: type(r) = 'ARCHIVED_LINK'}) AS links
RETURN kind, links[..$limit] AS links, size(links) AS total
ORDER BY kind
