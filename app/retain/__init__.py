"""The write path: chunking, extraction (local and LLM), and the retain pipeline."""
