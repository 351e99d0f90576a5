"""Everything that touches Neo4j, Qdrant or the embedding model lives here."""
