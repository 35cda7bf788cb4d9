"""Recall: name resolution, the app registry and (later) embeddings and the vector index. No Qt here."""
