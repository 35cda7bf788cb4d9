"""`JIYI_CHROMA_URL`: the same recall against a real `chroma run` server on 127.0.0.1, started here."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.config import ConfigError, load_config
from service.memory.memory import Memory
from tests.chroma_server import chroma_server, free_port

pytestmark = pytest.mark.slow  # starts a Chroma server: seconds


@pytest.fixture
def chroma_url(tmp_path: Path) -> Iterator[str]:
    with chroma_server(tmp_path / "chroma") as url:
        yield url


def test_recall_works_against_a_chroma_server(chroma_url: str, tmp_path: Path) -> None:
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_CHROMA_URL": chroma_url}
    with Memory.open(load_config(home=tmp_path / "home", env=env)) as memory:
        memory.runs.archive_episodes(
            [
                {
                    "run_id": "h1",
                    "ts_end": time.time(),
                    "device_scope": "device:d1",
                    "goal_text": "在小红书搜索火锅店",
                    "apps": ["com.xingin.xhs"],
                    "success": True,
                    "steps": 3,
                },
            ]
        )
        assert memory.recall.recall_query("搜索火锅店", "d1").top1_apps == ["com.xingin.xhs"]
        assert memory.recall.rebuild_vectors()["embedded"] == 1
        assert memory.recall.recall_query("搜索火锅店", "d1").top1_apps == ["com.xingin.xhs"]
        assert memory.recall.state()["episode_vectors"] == 1
    assert not (tmp_path / "home" / "vectors").exists()


def test_a_bad_chroma_url_is_refused_before_anything_opens(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="JIYI_CHROMA_URL"):
        load_config(home=tmp_path / "home", env={"JIYI_CHROMA_URL": "ftp://nowhere"})
    assert not (tmp_path / "home").exists()


def test_an_unreachable_chroma_server_fails_open(tmp_path: Path) -> None:
    env = {"JIYI_EMBED_MODEL": "hash", "JIYI_CHROMA_URL": f"http://127.0.0.1:{free_port()}"}
    with Memory.open(load_config(home=tmp_path / "home", env=env)) as memory:
        started = memory.runs.run_start("q", "d1", goal="搜索火锅店")
        assert started["recall"]["status"] == "error"  # the run goes on
        finished = memory.runs.run_finish("q", {"success": True, "apps": ["com.xingin.xhs"], "steps": 3})
        assert finished["archived"] is True and finished["indexed"] is False
        assert memory.recall.errors["episode"] == 2
