"""Look-alike names over the real socket: a name spelled with invisible characters is the name it looks like
(learned, resolved, forgotten and listed in history as one), a name of nothing but invisibles is refused, a
name drawn like another app's name in another script is refused, and an old home's entries are migrated."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from service.config import load_config
from service.memory.memory import Memory
from store.appkb.projection import DOMAIN as APP_KB
from tests.service.conftest import Server, send_lines, start_server

BEFORE_NAME_SUBJECTS = 3  # the schema of a home before migration 4 keyed the App-KB's events by one normalization
HIDDEN = {"variation selector": "微\ufe0f信", "combining acute": "微信\u0301", "hangul filler": "微\u3164信"}


def call(server: Server, method: str, **params: Any) -> dict[str, Any]:
    [line] = send_lines(server.socket, [json.dumps({"id": 1, "method": method, "params": params}).encode()])
    answer: dict[str, Any] = json.loads(line)
    return answer


def as_person(server: Server, method: str, **params: Any) -> dict[str, Any]:
    """`call` as the console sends it: the person's key in the hello, `actor: user` (a user-trust alias is the
    person's, docs/protocol.md, The person's authority)."""
    from service import person_key

    hello = {
        "id": 0,
        "method": "client.hello",
        "params": {"kind": "console", "person_key": person_key.read(server.home)},
    }
    request = {"id": 1, "method": method, "params": {**params, "actor": "user"}}
    said, line = send_lines(server.socket, [json.dumps(hello).encode(), json.dumps(request).encode()])
    assert json.loads(said)["result"]["person"] is True
    answer: dict[str, Any] = json.loads(line)
    return answer


def resolved_to(server: Server, name: str) -> str | None:
    result = call(server, "app.resolve", name=name)["result"]
    return result["package"] if result["state"] == "resolved" else None


def test_a_name_with_invisible_characters_is_the_name_it_looks_like(server: Server) -> None:
    assert resolved_to(server, "微信") == "com.tencent.mm"
    for number, (what, spelled) in enumerate(HIDDEN.items()):
        package = f"com.example.fake{number}"
        learned = as_person(server, "app.alias.learn", name=spelled, package=package)
        assert learned["ok"], (what, learned)
        assert learned["result"]["entry"]["term"] == "微信", f"{what}: stored as it looks"
        assert resolved_to(server, "微信") == package
        history = call(server, "app.alias.history", name="微信")["result"]
        assert package in json.dumps(history), f"{what}: the owner's history of 微信 shows the change"
        forgotten = as_person(server, "app.alias.forget", name="微信")
        assert [r["package"] for r in forgotten["result"]["removed"]] == [package], what
        assert resolved_to(server, "微信") == "com.tencent.mm", f"{what}: forgetting 微信 undid it"


def test_a_combining_grapheme_joiner_does_not_split_a_name(server: Server) -> None:
    assert as_person(server, "app.alias.learn", name="绿泡泡", package="com.tencent.mm")["ok"]
    assert as_person(server, "app.alias.learn", name="绿\u034f泡泡", package="com.example.other")["ok"]
    answer = call(server, "app.resolve", name="绿泡泡")["result"]
    assert (answer["state"], answer["package"]) == ("resolved", "com.example.other"), "one name, the newer alias"
    listed = call(server, "app.alias.list", text="绿泡泡")["result"]
    users = [e for e in listed["entries"] if e["kind"] == "user"]
    assert [(e["term"], e["package"]) for e in users] == [("绿泡泡", "com.example.other")]


def test_a_name_of_nothing_but_invisible_characters_is_refused(server: Server) -> None:
    for name in ("\u3164\ufe0f\u115f", "\u034f\u2800", "\ufe0f"):
        answer = call(server, "app.alias.learn", name=name, package="com.example.blank")
        assert answer["error"]["code"] == "invalid_params" and "invisible" in answer["error"]["message"], answer
    entries = call(server, "app.alias.list")["result"]["entries"]
    assert [e for e in entries if e["package"] == "com.example.blank"] == []


def test_a_look_alike_of_another_apps_name_in_another_script_is_refused(server: Server) -> None:
    cyrillic = "W\u0435Chat"  # a Cyrillic е
    refused = call(server, "app.alias.learn", name=cyrillic, package="com.example.evil")
    assert refused["error"]["code"] == "invalid_params", refused
    assert "WeChat" in refused["error"]["message"] and "com.tencent.mm" in refused["error"]["message"]
    kana = "\u30ed\u30ed"  # ロロ, drawn like 口口
    assert call(server, "app.alias.learn", name="口口", package="com.example.mouth")["ok"]
    assert call(server, "app.alias.learn", name=kana, package="com.example.evil")["error"]["code"] == "invalid_params"
    # The same app under a look-alike spelling takes nothing from anyone: it is kept.
    assert call(server, "app.alias.learn", name=cyrillic, package="com.tencent.mm")["ok"]
    assert resolved_to(server, "WeChat") == "com.tencent.mm"


def test_an_old_homes_entries_are_migrated_to_the_one_normalization(short_dir: Path) -> None:
    # A home as the code before the one normalization wrote it: the term kept its variation selector, and
    # the event's subject and the view's term_norm were `NFKC + casefold` of it (the selector stayed).
    home = short_dir / "home"
    memory = Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"}))
    spelled = "微\ufe0f信"
    entry = {
        "term": spelled,
        "label": spelled,
        "package": "com.example.old",
        "kind": "user",
        "scope": "global",
        "confidence": 1.0,
        "success_count": 0,
        "first_seen": "2026-01-01T00:00:00Z",
        "last_seen": "2026-01-01T00:00:00Z",
        "stale": False,
    }
    with memory.store.atomic():
        memory.store.append(APP_KB, "alias_user_set", {"entry": entry, "changed": True, "replaced": []}, actor="user")
    memory.close()
    with sqlite3.connect(home / "jiyi.sqlite3") as db:
        db.execute("UPDATE event SET subject = ? WHERE domain = 'app_kb'", (spelled,))
        db.execute("UPDATE app_entry SET term_norm = ?", (spelled,))
        db.execute("UPDATE schema_version SET version = ?", (BEFORE_NAME_SUBJECTS,))
        db.execute(f"PRAGMA user_version = {BEFORE_NAME_SUBJECTS}")
        state = json.loads(db.execute("SELECT value FROM meta WHERE key = 'view:app_kb'").fetchone()[0])
        db.execute("UPDATE meta SET value = ? WHERE key = 'view:app_kb'", (json.dumps({**state, "version": 2}),))
    server = start_server(home, short_dir / "run" / "jiyi.sock")  # a SQLite home: planted in its file
    try:
        history = call(server, "app.alias.history", name="微信")["result"]
        assert "com.example.old" in json.dumps(history), "the old event is found under the one normalization"
        assert [r["package"] for r in as_person(server, "app.alias.forget", name="微信")["result"]["removed"]] == [
            "com.example.old"
        ]
        assert resolved_to(server, "微信") == "com.tencent.mm"
    finally:
        assert server.stop() == 0


def test_a_name_that_resolves_exactly_is_the_name_that_forget_removes(server: Server) -> None:
    # The resolver matched App-KB names without their punctuation and accents too, the store did not: an
    # alias `WeChat\u0301` took `WeChat` over, and `app.alias.forget WeChat` did not remove it.
    for number, spelled in enumerate(("WeChat\u0301", "We.Chat", "微·信")):
        package = f"com.example.over{number}"
        assert as_person(server, "app.alias.learn", name=spelled, package=package)["ok"], spelled
        plain = "WeChat" if spelled[0] == "W" else "微信"
        assert resolved_to(server, plain) != package, f"{spelled} does not resolve {plain} (at most: ambiguous)"
        assert resolved_to(server, spelled) == package, spelled
