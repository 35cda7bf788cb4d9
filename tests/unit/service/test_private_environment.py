"""The console's private service reads the settings the console was given, not only the home's config.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import load_config, save_settings
from service.remote.private import child_environment


def test_the_child_is_given_the_consoles_settings_and_reads_them_back_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    save_settings(home, {"episode_keep": 800})  # the child reads config.toml itself
    monkeypatch.setenv("JIYI_DREAM", "off")  # in this process's environment, overridden below
    given = {
        "JIYI_EMBED_MODEL": "hash",
        "JIYI_APP_KB": "off",
        "JIYI_SENSITIVE_WORDS": "工资,病历",
        "JIYI_DREAM": "manual",
        "JIYI_SOCKET": str(tmp_path / "s.sock"),
        "JIYI_DATABASE_PASSWORD": "pw",
    }
    config = load_config(home=home, env=given, overrides={"memory_rag": "on"})
    env = child_environment(config)
    assert "JIYI_SOCKET" not in env and "JIYI_HOME" not in env  # given as --socket and --home
    assert env["JIYI_APP_KB"] == "off" and env["JIYI_SENSITIVE_WORDS"] == "工资,病历"
    assert env["JIYI_DREAM"] == "manual" and env["JIYI_MEMORY_RAG"] == "on"
    assert "JIYI_EPISODE_KEEP" not in env
    child = load_config(home=home, env={**env, "JIYI_SOCKET": str(tmp_path / "s.sock")})
    assert child.values == config.values and child.database_password() == "pw"
