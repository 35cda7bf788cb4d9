"""Recall: name normalization and resolution, the app registry, the embedders, the vector index
(Chroma) and recall of past episodes. No Qt here."""
