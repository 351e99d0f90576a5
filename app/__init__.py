"""Mnemo: long-term memory for AI agents, a knowledge graph in Neo4j with fact vectors in Qdrant."""

__version__ = "0.1.0"
