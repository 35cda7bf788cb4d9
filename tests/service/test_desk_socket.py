"""The desktop-assistant methods over a real `jiyi serve` socket."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from service.client import JiyiClient, ServiceError
from tests.json_reads import dig
from tests.service.conftest import Server, send_lines


def call(server: Server, method: str, params: dict[str, Any]) -> dict[str, Any]:
    [line] = send_lines(server.socket, [json.dumps({"id": 1, "method": method, "params": params}).encode()])
    answer: dict[str, Any] = json.loads(line)
    return answer


def test_a_desk_session_over_the_socket(server: Server) -> None:
    ok = call(
        server,
        "interaction.remember",
        {"interaction_id": "t-1", "user_text": "之前 UFO 检查", "assistant_text": "通过"},
    )
    assert ok["ok"] and ok["result"]["created"] is True
    assert (
        call(server, "interaction.remember", {"interaction_id": "t-1", "user_text": "别的"})["error"]["code"]
        == "conflict"
    )
    card = call(
        server,
        "task.complete",
        {"task_id": "k1", "title": "UFO 检查", "status": "succeeded", "schedule_id": "ufo", "run_id": "r1"},
    )
    assert card["result"]["bundle_id"] == "schedule/ufo"
    recall = call(server, "memory.recall", {"query": "之前 UFO 检查怎么样了", "limit": 8})["result"]
    for key in (
        "task_cards",
        "interactions",
        "bundles",
        "recent_workdays",
        "related_topics",
        "core_facts",
        "related_facts",
        "relevant_skills",
    ):
        assert key in recall
    assert recall["interactions"][0]["interaction_id"] == "t-1"
    assert recall["bundles"][0]["bundle_id"] == "schedule/ufo"
    plan = call(server, "memory.maintenance.plan", {"limit": 10})["result"]
    commit = call(
        server,
        "memory.maintenance.commit",
        {
            "batch_id": plan["batch_id"],
            "topics": [{"title": "UFO", "interaction_ids": ["t-1"], "segment": "检查通过"}],
            "skills": [{"name": "简报", "text": "结果只说结论", "source_interaction_id": "t-1", "quote": "UFO 检查"}],
        },
    )["result"]
    skill_id = commit["skills"][0]["skill_id"]
    refused = call(server, "memory.skill.set_status", {"skill_id": skill_id, "status": "active"})
    assert refused["error"]["code"] == "forbidden"
    assert call(server, "memory.skill.list", {})["result"]["skills"] == []
    assert call(server, "memory.skill.list", {"audience": "review"})["result"]["skills"][0]["status"] == "draft"
    assert (
        call(server, "memory.topic.get", {"topic_id": commit["topics"][0]["topic_id"]})["result"]["interactions"] == 1
    )
    status = call(server, "memory.maintenance.status", {})["result"]
    assert status["backlog"] == 0
    # A plan taken once a topic exists lists it with the fields a topic has, none left unset or made up.
    call(server, "interaction.remember", {"interaction_id": "t-2", "user_text": "UFO 又检查了", "assistant_text": "好"})
    [open_topic] = call(server, "memory.maintenance.plan", {"limit": 10})["result"]["open_topics"]
    assert list(open_topic) == [
        "topic_id",
        "title",
        "summary",
        "kind",
        "task_ids",
        "first_workday",
        "last_workday",
        "interactions",
        "updated",
    ]
    assert open_topic["title"] == "UFO" and open_topic["interactions"] == 1
    pack = call(server, "context.prepare", {"query": "UFO", "schedule_id": "ufo", "budget_chars": 500})["result"]
    assert pack["used_chars"] <= 500
    assert call(server, "task.list", {})["result"]["tasks"][0]["task_id"] == "k1"
    assert call(server, "transition.assess", {"text": "UFO 检查呢", "current_task_id": "k1"})["ok"]
    assert call(server, "consolidation.record", {"kind": "finished", "summary": "整理完"})["ok"]
    assert call(server, "bundle.list", {})["result"]["bundles"][0]["bundle_id"] == "schedule/ufo"
    assert (
        call(server, "bundle.get", {"schedule_id": "ufo", "path": "state.json"})["result"]["documents"][0]["path"]
        == "state.json"
    )
    # Seed 002's path: the user asks in their turn, the agent remembers it and names it with the user's words.
    asked = {"interaction_id": "t-ask", "user_text": "启用简报技能吧", "assistant_text": "好"}
    assert call(server, "interaction.remember", asked)["ok"]
    words = {"user_request": "启用简报技能", "interaction_id": "t-ask"}
    granted = call(server, "memory.skill.set_status", {"skill_id": skill_id, "status": "active", **words})
    assert granted["result"]["status"] == "active"
    assert [s["skill_id"] for s in call(server, "memory.skill.list", {})["result"]["skills"]] == [skill_id]


@pytest.mark.parametrize(
    ("method", "params", "code"),
    [
        ("interaction.remember", {"interaction_id": 5, "user_text": "x"}, "invalid_params"),
        ("interaction.remember", {"interaction_id": "x", "user_text": "x", "thinking": "..."}, "invalid_params"),
        ("memory.recall", {}, "invalid_params"),
        ("bundle.document.put", {"schedule_id": "none", "path": "a.md", "content": "x"}, "invalid_params"),
        (
            "bundle.document.put",
            {"schedule_id": "none", "path": "a.md", "content": "x", "expected_revision": 0},
            "not_found",
        ),
        ("memory.maintenance.commit", {"topics": "x"}, "invalid_params"),
        ("memory.topic.get", {"topic_id": "nope"}, "not_found"),
        ("consolidation.record", {"kind": "workday_review"}, "invalid_params"),
        # Names that become files: longer than a file name holds, a trailing newline, backslashes.
        (
            "task.complete",
            {"task_id": "k", "title": "x", "status": "succeeded", "schedule_id": "s", "run_id": "运" * 90},
            "invalid_params",
        ),
        (
            "bundle.document.put",
            {"bundle_id": "project/p", "path": "a.md\n", "content": "x", "expected_revision": 0},
            "invalid_params",
        ),
        (
            "bundle.document.put",
            {"bundle_id": "project/p", "path": "runs/..\\..\\x/summary.md", "content": "x", "expected_revision": 0},
            "invalid_params",
        ),
    ],
)
@pytest.mark.xdist_group("desk_shared_server")  # one worker starts the module's one server
def test_bad_desk_requests_get_clear_errors(
    shared_server: Server, method: str, params: dict[str, Any], code: str
) -> None:
    answer = call(shared_server, method, params)
    assert answer["ok"] is False and answer["error"]["code"] == code and answer["error"]["message"]
    assert shared_server.alive()


def test_concurrent_edits_of_one_document_exactly_one_wins(server: Server) -> None:
    assert call(
        server,
        "task.complete",
        {"task_id": "k1", "title": "周报", "status": "succeeded", "schedule_id": "weekly", "run_id": "r1"},
    )["ok"]
    revision = 1
    for round_ in range(20):
        results: list[dict[str, Any]] = []
        barrier = threading.Barrier(2)

        def edit(
            who: str,
            barrier: threading.Barrier = barrier,
            results: list[dict[str, Any]] = results,
            text: str = f"# 经验\n第{round_}轮 {{who}} 写的\n",
            revision: int = revision,
        ) -> None:
            client = JiyiClient(server.socket, timeout=10)
            barrier.wait()
            put = client.put_document("schedule/weekly", "lessons.md", text.format(who=who), revision)
            results.append({"who": who, **put})
            client.close()

        threads = [threading.Thread(target=edit, args=(who,)) for who in ("console", "agent")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        winners = [r for r in results if r["stored"]]
        losers = [r for r in results if not r["stored"]]
        assert len(winners) == 1 and len(losers) == 1, results
        conflict = losers[0]["error"]
        assert conflict["code"] == "conflict"
        # The loser is handed exactly what won, so nothing is lost: it can merge and retry.
        assert conflict["data"]["revision"] == revision + 1
        assert conflict["data"]["content"] == f"# 经验\n第{round_}轮 {winners[0]['who']} 写的\n"
        revision += 1
    stored = call(server, "bundle.get", {"schedule_id": "weekly", "path": "lessons.md"})["result"]["documents"][0]
    assert stored["revision"] == 21 and stored["file"] == "same"
    on_disk = Path(call(server, "bundle.get", {"schedule_id": "weekly"})["result"]["directory"]) / "lessons.md"
    assert on_disk.read_text("utf-8") == stored["content"]


def test_strict_client_raises_with_the_conflict_data(server: Server) -> None:
    call(
        server,
        "task.complete",
        {"task_id": "k1", "title": "周报", "status": "succeeded", "schedule_id": "weekly", "run_id": "r1"},
    )
    with JiyiClient(server.socket, strict=True) as client, pytest.raises(ServiceError) as stale:
        client.call(
            "bundle.document.put",
            {"schedule_id": "weekly", "path": "lessons.md", "content": "x", "expected_revision": 7},
        )
    assert stale.value.code == "conflict" and dig(stale.value.data, "revision") == 1


def test_the_client_degrades_when_the_service_is_away(tmp_path: Path) -> None:
    client = JiyiClient(tmp_path / "nobody.sock", timeout=1)
    result = client.memory_recall("之前 UFO 检查怎么样了")
    assert result["degraded"] is True and result["interactions"] == [] and result["core_facts"] == []
    assert client.remember_interaction("x", "问", "答")["stored"] is False


def test_the_desk_agent_example_runs_against_a_live_service(server: Server) -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    done = subprocess.run(
        [sys.executable, str(REPO / "docs" / "desk-agent-example.py"), "--socket", str(server.socket)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "recalled turns: ['帮我检查一下 UFO 项目的构建'" in out
    assert "filed: 2 facts: ['active']" in out
    assert "activate without the user's words: forbidden" in out
    assert "context pack:" in out


@pytest.mark.parametrize("example", ["desk-agent-example.py", "agent-example.py"])
def test_the_examples_say_the_service_is_not_running(example: str, tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import REPO

    missing = tmp_path / "nobody.sock"
    done = subprocess.run(
        [sys.executable, str(REPO / "docs" / example), "--socket", str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith(f"the service is not running: cannot reach the Jiyi service at {missing}")
