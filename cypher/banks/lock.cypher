// Serialise the writers of one bank: the first statement of every exclusive write transaction
// (app.store.graph.Graph.write) takes the bank node's write lock, so concurrent writers of a
// bank, in any process, resolve entities and repair them one after another, and two of them
// can never both create the same new entity. No row: the bank does not exist.
// params: $bank_id
// mode: write
MATCH (b:Bank {id: $bank_id})
SET b.write_seq = coalesce(b.write_seq, 0) + 1
RETURN b.write_seq AS seq
