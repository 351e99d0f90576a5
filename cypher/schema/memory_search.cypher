// Keyword channel: BM25 over fact text and entity names. The bank, state, type and tags
// are indexed as single-token fields of the same index so the Lucene query itself is scoped
// (filtering afterwards would lose hits of a small bank beside a large one).
// params: none
// mode: schema
CREATE FULLTEXT INDEX memory_search IF NOT EXISTS
FOR (m:Memory) ON EACH [m.text, m.entity_names, m.bank_key, m.state, m.fact_type, m.tag_tokens]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
