// Serialise writers of one bank: the first statement of every retain transaction takes the
// bank node's write lock, so concurrent retains resolve entities one after another and two of
// them can never both create the same new entity.
// params: $bank_id
// mode: write
MATCH (b:Bank {id: $bank_id})
SET b.write_seq = coalesce(b.write_seq, 0) + 1
RETURN b.write_seq AS seq
