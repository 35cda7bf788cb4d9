"""Learning over a real `jiyi serve` socket: the whole path, kill -9 between every pair of steps, shutdown."""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.service.conftest import Server, send_lines
from tests.service.learning_setup import write_grant

if sys.platform == "win32":  # mypy then leaves the rest of this module to Unix too
    pytest.skip("kills the service with SIGKILL (Unix only)", allow_module_level=True)

ENV = {"JIYI_MEMORY_RAG": "on"}


def call(server: Server, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    request = json.dumps({"id": 1, "method": method, "params": params or {}}, ensure_ascii=False).encode()
    [line] = send_lines(server.socket, [request])
    reply: dict[str, Any] = json.loads(line)
    return reply


def ok(server: Server, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    reply = call(server, method, params)
    assert reply["ok"], reply
    result: dict[str, Any] = reply["result"]
    return result


def start(launch: Callable[..., Server], folder: Path) -> Server:
    return launch(folder / "home", folder / "run" / "jiyi.sock", env=ENV)


def test_source_to_adoption_to_later_use_over_the_socket(short_dir: Path, launch: Callable[..., Server]) -> None:
    write_grant(short_dir / "home")
    server = start(launch, short_dir)
    ok(
        server,
        "interaction.remember",
        {"interaction_id": "i1", "user_text": "我的项目都用 Python 写", "assistant_text": "明白"},
    )
    lease = ok(server, "learning.extract.lease", {"request_id": "l1"})
    assert lease["snapshot"]["source"]["turns"][0] == {"role": "user", "text": "我的项目都用 Python 写"}
    result = {
        "operation": "add",
        "kind": "fact.project",
        "content": "用户的项目都用 Python 写",
        "quotations": ["我的项目都用 Python 写"],
    }
    assert ok(
        server, "learning.extract.submit", {"operation_id": lease["operation_id"], "request_id": "s1", "result": result}
    )["accepted"]
    review = ok(server, "learning.review.lease", {"request_id": "r1"})
    assert review["sources"][0]["id"] == "i1" and review["candidate"] == result
    verdict = ok(
        server,
        "learning.review.submit",
        {"review_id": review["review_id"], "request_id": "v1", "verdict": "approved", "reason": "用户原话"},
    )
    assert verdict["intent_state"] == "adopted"
    pack = ok(server, "context.prepare", {"query": "新项目用什么语言"})
    assert "用户的项目都用 Python 写" in pack["system_prompt"]
    assert pack["used_chars"] <= pack["budget_chars"]
    outcome = {"success": True, "verifier": "pass", "goal_text": "连上家里 Wi-Fi", "reason": "先关掉再打开 WLAN 才连上"}
    ok(server, "run.finish", {"run_id": "r1", "outcome": outcome})
    lease = ok(server, "learning.extract.lease", {"request_id": "l2"})
    lesson = {
        "operation": "add",
        "kind": "lesson",
        "content": "Wi-Fi 连不上时先关掉再打开 WLAN",
        "quotations": ["先关掉再打开 WLAN"],
    }
    ok(server, "learning.extract.submit", {"operation_id": lease["operation_id"], "request_id": "s2", "result": lesson})
    review = ok(server, "learning.review.lease", {"request_id": "r2"})
    ok(
        server,
        "learning.review.submit",
        {"review_id": review["review_id"], "request_id": "v2", "verdict": "approved", "reason": "验证通过"},
    )
    started = ok(server, "run.start", {"run_id": "r2", "device": "d1", "goal": "连接 Wi-Fi"})
    assert [lesson["text"] for lesson in started["lessons"]] == ["Wi-Fi 连不上时先关掉再打开 WLAN"]
    assert server.stop() == 0


# The pipeline of one source as the requests an extractor and a reviewer send; each may be resent as it is.
STEPS = ("remember", "extract.lease", "extract.submit", "review.lease", "review.submit")


class Pipeline:
    def __init__(self) -> None:
        self.lease: dict[str, Any] = {}
        self.review: dict[str, Any] = {}

    def send(self, server: Server, step: str) -> dict[str, Any]:
        if step == "remember":
            return call(server, "interaction.remember", {"interaction_id": "i1", "user_text": "我早上九点开始工作"})
        if step == "extract.lease":
            reply = call(server, "learning.extract.lease", {"request_id": "lease"})
            self.lease = reply.get("result", {})
            return reply
        if step == "extract.submit":
            result = {
                "operation": "add",
                "kind": "fact.profile",
                "content": "用户早上九点开始工作",
                "quotations": ["我早上九点开始工作"],
            }
            return call(
                server,
                "learning.extract.submit",
                {"operation_id": self.lease["operation_id"], "request_id": "submit", "result": result},
            )
        if step == "review.lease":
            reply = call(server, "learning.review.lease", {"request_id": "review"})
            self.review = reply.get("result", {})
            return reply
        verdict = {
            "review_id": self.review.get("review_id", "none"),
            "request_id": "verdict",
            "verdict": "approved",
            "reason": "原话",
        }
        return call(server, "learning.review.submit", verdict)


@pytest.mark.parametrize("killed_after", range(1, len(STEPS) + 1))
def test_kill_9_between_steps_never_adopts_twice_nor_refunds(
    short_dir: Path, launch: Callable[..., Server], killed_after: int
) -> None:
    write_grant(short_dir / "home")
    server = start(launch, short_dir)
    pipeline = Pipeline()
    for step in STEPS[:killed_after]:
        assert pipeline.send(server, step)["ok"], step
    before = ok(server, "learning.status")
    server.stop(signal.SIGKILL)
    server = start(launch, short_dir)
    after = ok(server, "learning.status")
    for quota in ("extractions", "reviews", "mutations", "bytes"):
        assert after["quotas"][quota]["used"] == before["quotas"][quota]["used"], quota  # nothing given back
    # The client resends its last request (its reply may have been lost), then goes on.
    replies = [pipeline.send(server, step) for step in STEPS[killed_after - 1 :]]
    assert all(reply["ok"] or reply["error"]["code"] == "not_found" for reply in replies), replies
    records = ok(server, "learning.records.list")["records"]
    final = ok(server, "learning.status")
    assert len(records) <= 1 and final["quotas"]["mutations"]["used"] == len(records)
    assert final["quotas"]["extractions"]["used"] == 1  # the lease was admitted once, whatever was resent
    if killed_after in (2, 4):
        # A lease with no saved answer ends failed at restart; the late answer is refused, never adopted.
        assert records == [] and final["queue"]["failed"] == 1 and final["pending"] == 0
    else:
        assert [r["content"] for r in records] == ["用户早上九点开始工作"]
    assert server.stop() == 0


def test_shutdown_with_work_in_flight_cancels_and_persists(short_dir: Path, launch: Callable[..., Server]) -> None:
    write_grant(short_dir / "home")
    server = start(launch, short_dir)
    ok(server, "interaction.remember", {"interaction_id": "i1", "user_text": "我不吃辣"})
    lease = ok(server, "learning.extract.lease", {"request_id": "l1"})
    assert server.stop(signal.SIGTERM) == 0
    server = start(launch, short_dir)
    status = ok(server, "learning.status")
    assert status["queue"]["failed"] == 1 and status["open_leases"] == {"operations": [], "reviews": []}
    assert status["quotas"]["extractions"]["used"] == 1
    late = ok(
        server,
        "learning.extract.submit",
        {"operation_id": lease["operation_id"], "request_id": "s1", "result": {"operation": "noop"}},
    )
    assert late == {"accepted": False, "reason": "this operation ended: cancelled: the service shut down"}
    assert server.stop() == 0
