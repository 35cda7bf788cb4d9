"""The `[learning]` grant: validated before the database opens, every key named when refused."""

from __future__ import annotations

import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from service.config import ConfigError, load_config
from service.memory.memory import Memory
from store.core import clock
from store.core.home import DB_NAME
from store.learning.grant import EXTRACTION, Grant, GrantError, example_section, parse_grant


def example() -> dict[str, Any]:
    section: dict[str, Any] = tomllib.loads(example_section())["learning"]
    return section


def write_config(home: Path, section: str) -> None:
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "config.toml").write_text(section, "utf-8")


def test_the_example_is_complete_valid_and_expires_thirty_days_ahead() -> None:
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    grant = parse_grant(tomllib.loads(example_section(now))["learning"])
    assert grant.expires_at == "2026-12-30T23:59:59+00:00"
    assert clock.parse_iso(grant.expires_at) - now >= timedelta(days=30)
    assert example_section(now + timedelta(hours=11)) == example_section(now)
    assert grant.lookback == 7 * 86400 and grant.timeout == 120 and grant.adoption.ttl == 90 * 86400
    assert grant.model is None and grant.review.admissions == 200
    assert set(grant.fingerprints()) == {"extraction", "review", "adoption"}
    assert Grant.from_parts(grant.parts()) == grant


@pytest.mark.parametrize("key", sorted(EXTRACTION))
def test_every_extraction_field_is_required(key: str) -> None:
    raw = example()
    del raw[key]
    with pytest.raises(GrantError, match=rf"learning\.{key}: required"):
        parse_grant(raw)


@pytest.mark.parametrize(
    ("where", "key", "value"),
    [
        ((), "max_extractions", 0),
        ((), "max_extractions", 10_001),
        ((), "max_pending", 1_001),
        ((), "max_pending", True),
        ((), "lookback", "366d"),
        ((), "lookback", "0s"),
        ((), "lookback", "soon"),
        ((), "policy", ""),
        ((), "policy", "x" * (8 * 1024 + 1)),
        ((), "max_input_bytes", 4095),
        ((), "max_input_bytes", 128 * 1024 + 1),
        ((), "max_output_tokens", 8193),
        ((), "timeout", "301s"),
        ((), "expires_at", "never"),
        ((), "expires_at", "inf"),
        ((), "owner", "two words"),
        ((), "model", ""),
        (("review",), "admissions", 0),
        (("review",), "authority_id", ""),
        (("adoption",), "kinds", ["fact.profile", "opinion"]),
        (("adoption",), "kinds", []),
        (("adoption",), "operations", ["add", "merge"]),
        (("adoption",), "max_records", 0),
        (("adoption",), "max_bytes", 0),
        (("adoption",), "ttl", "10s"),
    ],
)
def test_bad_bounds_are_refused_with_the_key_named(where: tuple[str, ...], key: str, value: object) -> None:
    raw = example()
    table = raw
    for name in where:
        table = table[name]
    table[key] = value
    with pytest.raises(GrantError, match=rf"learning\.{'.'.join((*where, key))}: "):
        parse_grant(raw)


@pytest.mark.parametrize("where", [(), ("review",), ("adoption",)])
def test_unknown_fields_are_refused(where: tuple[str, ...]) -> None:
    raw = example()
    table = raw
    for name in where:
        table = table[name]
    table["trust"] = "high"
    with pytest.raises(GrantError, match=r"\.trust: unknown key"):
        parse_grant(raw)


def test_missing_subtables_are_refused() -> None:
    raw = example()
    del raw["adoption"]
    with pytest.raises(GrantError, match=r"learning\.adoption: required table"):
        parse_grant(raw)


def test_a_bad_grant_is_refused_before_the_database_is_created(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, example_section().replace("max_pending = 50", "max_pending = 5000"))
    with pytest.raises(
        ConfigError, match=r"config\.toml: learning\.max_pending: expected a whole number from 1 to 1,000"
    ):
        load_config(home=home, env={})
    assert not (home / DB_NAME).exists()


def test_each_part_has_its_own_fingerprint() -> None:
    base = parse_grant(example())
    raw = example()
    raw["review"]["admissions"] = 7
    changed = parse_grant(raw)
    assert changed.fingerprints()["review"] != base.fingerprints()["review"]
    assert changed.fingerprints()["extraction"] == base.fingerprints()["extraction"]
    assert changed.fingerprints()["adoption"] == base.fingerprints()["adoption"]


def test_a_grant_is_immutable_for_its_id(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, example_section())
    with Memory.open(load_config(home=home, env={})) as memory:
        assert memory.learning.status().state == "active"
        stored = memory.learning.status().stored_fingerprints
    write_config(home, example_section().replace("max_extractions = 200", "max_extractions = 9000"))
    with Memory.open(load_config(home=home, env={})) as memory:
        status = memory.learning.status()
        assert status.state == "stopped" and "immutable for its id" in str(status.stopped_because)
        assert "extraction changed" in str(status.stopped_because)
        assert status.stored_fingerprints == stored  # the old grant's history stays as it was
        with pytest.raises(Exception, match="immutable"):
            memory.learning.extract_lease("r1")
