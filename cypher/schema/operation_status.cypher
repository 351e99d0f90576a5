// Operations by status (resume or fail interrupted work at start).
// params: none
// mode: schema
CREATE INDEX operation_status IF NOT EXISTS FOR (o:Operation) ON (o.status)
