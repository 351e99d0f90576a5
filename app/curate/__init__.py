"""Inspect and curate: banks, memories, documents and entities as people audit and correct them."""
