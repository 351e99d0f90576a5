// Keyword channel: BM25 over fact text and entity names. $lucene is built by
// app.recall.channels.keyword (bank, state, type and tag clauses inside the query, zero-boosted
// so the score is the text match alone). Score-0 hits only matched the filter clauses (a query
// of stop words); pending facts are half-written.
// One row with a list: the Python driver spends ~50 µs per record, far more than per list item.
// params: $bank_id, $lucene, $limit
// mode: read
CALL db.index.fulltext.queryNodes('memory_search', $lucene, {limit: $limit})
YIELD node, score
WHERE score > 0 AND node.bank_id = $bank_id AND coalesce(node.vector_pending, false) = false
RETURN collect({id: node.id, score: score}) AS hits
