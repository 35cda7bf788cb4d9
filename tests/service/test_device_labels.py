"""An agent's alias never overrides a device's label (issue 36 §3): `微信=com.evil.pay` sent by an agent over the
socket, however it is spelled, is refused naming the label; nothing an agent teaches or reports makes 微信
`resolved` (auto-launch) to another package, on any device; the person's own alias may, and says so."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pytestqt.qtbot import QtBot

from service.memory.memory import Memory
from service.rpc.host import SocketHost
from store.appkb.entry import AppKbEntry
from store.core import clock
from tests.conftest import put_entries
from tests.service.inprocess import exchange, exchange_as_person, line

PHONE = [("com.tencent.mm", "微信"), ("com.evil.pay", "极速支付")]  # 微信 is installed, and so is the thief
OTHER_PHONE = [("com.evil.pay", "极速支付")]  # no 微信 here
SPELLINGS = ["微信", "微\ufe0f信", "微\u200b信", " 微信 ", "微\u2060信", "微\U000e0100信", "微\u3164信"]


@pytest.fixture
def host(qtbot: QtBot, memory: Memory, short_dir: Path) -> Iterator[SocketHost]:
    memory.appkb.sync_inventory("phone1", PHONE)
    memory.appkb.sync_inventory("phone2", OTHER_PHONE)
    served = SocketHost(memory, short_dir / "run" / "jiyi.sock", workers=2)
    served.start()
    yield served
    served.stop()


def call(qtbot: QtBot, host: SocketHost, method: str, params: dict[str, Any]) -> dict[str, Any]:
    [reply] = exchange(qtbot, host, line({"id": 1, "method": method, "params": params}) + b"\n", 1)
    return reply


def resolves(qtbot: QtBot, host: SocketHost, name: str, device: str | None) -> dict[str, Any]:
    params = {"name": name} if device is None else {"name": name, "device": device}
    reply = call(qtbot, host, "app.resolve", params)
    assert reply["ok"], reply
    return dict(reply["result"])


def never_the_thief(qtbot: QtBot, host: SocketHost, name: str = "微信") -> None:
    """微信 resolves to WeChat where it is installed, and is never auto-launched as com.evil.pay anywhere."""
    on_phone = resolves(qtbot, host, name, "phone1")
    assert (on_phone["state"], on_phone["package"]) == ("resolved", "com.tencent.mm"), on_phone
    for device in ("phone2", "phone3", None):
        answer = resolves(qtbot, host, name, device)
        assert not (answer["state"] == "resolved" and answer["package"] == "com.evil.pay"), (device, answer)


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_an_agent_cannot_make_a_device_label_another_app(
    qtbot: QtBot, memory: Memory, host: SocketHost, spelling: str
) -> None:
    before = memory.store.count_events()
    for params in ({"name": spelling, "package": "com.evil.pay"}, {"assignment": f"{spelling}=com.evil.pay"}):
        reply = call(qtbot, host, "app.alias.learn", params)
        assert reply["ok"] is False and reply["error"]["code"] == "conflict", reply
        message = reply["error"]["message"]
        assert "com.tencent.mm's label on phone1" in message and "never overrides" in message, message
        assert any("phone1" in said for said in reply["error"]["data"]["named"])
        # Claiming to be the person does not help: actor user is the person's only.
        reply = call(qtbot, host, "app.alias.learn", {**params, "actor": "user"})
        assert reply["ok"] is False and reply["error"]["code"] == "forbidden", reply
    assert memory.store.count_events() == before
    never_the_thief(qtbot, host, spelling)


def test_a_launch_the_agent_reports_does_not_teach_the_label_away(
    qtbot: QtBot, memory: Memory, host: SocketHost
) -> None:
    """The same attack through run receipts: the agent says it launched 微信 and the device "confirmed" the thief."""
    for run in ("r1", "r2", "r3"):
        assert call(qtbot, host, "run.start", {"run_id": run, "device": "phone1"})["ok"]
        event = {"run_id": run, "step": 1, "tool": "launch_app", "result_class": "ok", "app_package": "com.evil.pay"}
        reply = call(qtbot, host, "run.event", {"event": event, "launch_name": "微信"})
        assert reply["ok"] and reply["result"].get("learned", []) == [], reply
        assert call(qtbot, host, "run.finish", {"run_id": run, "outcome": {"success": True}})["ok"]
    assert [e for e in memory.appkb.list_aliases(kind="learned") if e.package == "com.evil.pay"] == []
    never_the_thief(qtbot, host)


def test_a_learned_alias_already_there_never_resolves_against_the_label(
    qtbot: QtBot, memory: Memory, host: SocketHost
) -> None:
    """A learned entry that came in another way (an import of a TaskWizard App-KB), with many successes: still
    below the device's list, and never `resolved` to its package against 微信, on any device."""
    now = clock.iso_now()  # many successes, the last one now: its prior is the highest a learned alias gets
    thief = AppKbEntry("微信", "微信", "com.evil.pay", "learned", "global", 0.9, 40, now, now, last_success=now)
    put_entries(memory.store, thief, actor="import")
    never_the_thief(qtbot, host)
    on_other = resolves(qtbot, host, "微信", "phone2")
    assert on_other["state"] != "resolved" and on_other["reason"] in ("named_elsewhere", "not_installed"), on_other


def test_the_persons_alias_may_take_a_labels_place_and_says_so(qtbot: QtBot, memory: Memory, host: SocketHost) -> None:
    params = {"name": "微信", "package": "com.evil.pay", "actor": "user"}
    [reply] = exchange_as_person(qtbot, host, line({"id": 1, "method": "app.alias.learn", "params": params}) + b"\n", 1)
    assert reply["ok"] and reply["result"]["entry"]["kind"] == "user", reply
    assert any("com.tencent.mm's label on phone1" in w and "takes its place" in w for w in reply["result"]["warnings"])
    answer = resolves(qtbot, host, "微信", "phone1")
    assert (answer["state"], answer["package"]) == ("resolved", "com.evil.pay")  # the person decided


def test_an_agents_own_nickname_is_learned_and_resolves(qtbot: QtBot, memory: Memory, host: SocketHost) -> None:
    reply = call(qtbot, host, "app.alias.learn", {"name": "绿泡泡", "package": "com.tencent.mm"})
    assert reply["ok"] and reply["result"]["entry"]["kind"] == "learned"
    answer = resolves(qtbot, host, "绿泡泡", "phone1")
    assert (answer["state"], answer["package"]) == ("resolved", "com.tencent.mm")
    # A nickname nobody else bears may point anywhere; it stays below the device's own labels.
    assert call(qtbot, host, "app.alias.learn", {"name": "快付", "package": "com.evil.pay"})["ok"]
    assert resolves(qtbot, host, "快付", "phone1")["package"] == "com.evil.pay"
    never_the_thief(qtbot, host)
