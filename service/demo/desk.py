"""The desktop-assistant part of `jiyi demo`: a week of turns, schedules, topics, facts and skills.

Written through the same calls an assistant makes (`interaction.remember`,
`task.complete`, `memory.maintenance.plan/commit`, `consolidation.record`),
so the bundles, topics, facts and skill drafts the console shows are real.
"""

from __future__ import annotations

import time
from typing import NotRequired, TypedDict

from service.memory.memory import Memory

DAY = 86400.0
# (theme key, title, the user's turns, the assistant's reply template)
THEMES: list[tuple[str, str, list[str], str]] = [
    ("ufo", "UFO 项目构建检查", ["看一下 UFO 今天的构建", "UFO 的警告修了吗", "UFO 测试再跑一遍"], "UFO 构建{r}"),
    ("weekly", "周报", ["帮我整理这周的周报", "周报里加上 UFO 的进度", "周报发给老板前先给我看"], "周报草稿已更新"),
    ("trip", "出差上海", ["下周三去上海出差，订高铁", "上海的酒店订在公司附近", "出差的发票整理一下"], "已处理：{t}"),
    ("music", "闲聊：音乐", ["最近有什么好听的歌", "放点轻音乐", "这首歌叫什么"], "推荐了几首歌"),
]
SCHEDULES = [
    ("ufo-daily", "每日 UFO 构建检查", ["构建通过，3 个警告", "构建失败：磁盘已满", "构建通过，无警告"]),
    ("morning-news", "早间新闻摘要", ["整理了 8 条科技新闻", "整理了 6 条新闻，其中 2 条关于芯片"]),
]


class DemoEvidence(TypedDict):
    """A quote a demo fact stands on: from a turn or from a task card."""

    interaction_id: NotRequired[str]
    task_id: NotRequired[str]
    quote: str


class DemoFact(TypedDict):
    """A fact as a planner's commit proposes it (`maintenance_commit`'s `facts`)."""

    scope: str
    profile_kind: NotRequired[str]
    project: NotRequired[str]
    content: str
    evidence: list[DemoEvidence]


class DemoSkill(TypedDict):
    """A skill draft as a planner's commit proposes it (`maintenance_commit`'s `skills`)."""

    name: str
    text: str
    source_interaction_id: str
    quote: str


class DemoSegment(TypedDict):
    workday: str
    summary: str


class DemoTopic(TypedDict):
    """A topic as a planner's commit files it (`maintenance_commit`'s `topics`)."""

    topic_id: str
    title: str
    kind: str
    interaction_ids: list[str]
    segments: list[DemoSegment]


FACTS: list[DemoFact] = [
    {
        "scope": "profile",
        "profile_kind": "work_style",
        "content": "用户做嵌入式开发，喜欢简短的回答",
        "evidence": [{"interaction_id": "demo-turn-profile", "quote": "我是做嵌入式开发的，回答请简短一点"}],
    },
    {
        "scope": "environment",
        "content": "书房电脑运行 Ubuntu 24.04",
        "evidence": [
            {"interaction_id": f"demo-turn-env-{d}", "quote": "书房那台电脑装的是 Ubuntu 24.04"} for d in (4, 2)
        ],
    },
    {
        "scope": "environment",
        "content": "打印机在客厅，型号 HP M227",
        "evidence": [{"interaction_id": "demo-turn-printer", "quote": "打印机在客厅，型号是 HP M227"}],
    },
    {
        "scope": "project",
        "project": "UFO",
        "content": "UFO 项目每天早上检查构建",
        "evidence": [{"task_id": "ufo-daily-1", "quote": "每日 UFO 构建检查"}],
    },
]
SKILLS: list[DemoSkill] = [
    {
        "name": "周报先审",
        "text": "发周报之前，先把草稿发给用户审阅，得到同意再发送。",
        "source_interaction_id": "demo-turn-skill",
        "quote": "以后发周报前先让我看一眼再发",
    },
    {
        "name": "新闻只选科技财经",
        "text": "整理早间新闻时只保留科技和财经类。",
        "source_interaction_id": "demo-turn-skill2",
        "quote": "整理新闻时只保留科技和财经",
    },
]


def fill_desk(memory: Memory, *, days: int = 6) -> dict[str, int]:
    """A week of a desktop assistant's memory, ending now."""
    now = time.time()
    turns, n = _week_of_turns(memory, days, now)
    _personal_turns(memory, now)
    _file_topics(memory, turns)
    memory.maintenance.maintenance_commit({"facts": FACTS, "skills": SKILLS, "note": "提炼事实和技能草稿"})
    _person_decides(memory)
    memory.desk.record_consolidation("finished", summary="演示：整理完一周的问答")
    return {"interactions": n, "topics": len(memory.maintenance.list_topics()), "facts": len(memory.facts.list_facts())}


def _week_of_turns(memory: Memory, days: int, now: float) -> tuple[dict[str, list[str]], int]:
    """Each day's questions on the themes and each schedule's run; returns the turns by theme and their count."""
    turns: dict[str, list[str]] = {key: [] for key, *_ in THEMES}
    n = 0
    for day in range(days, 0, -1):
        base = now - day * DAY
        for index, (key, _title, asks, reply) in enumerate(THEMES):
            if (day + index) % 3 == 2:
                continue  # not every theme comes up every day
            for hour, ask in enumerate(asks[: 1 + (day % 3)]):
                n += 1
                interaction_id = f"demo-turn-{n:03d}"
                memory.desk.remember_interaction(
                    interaction_id,
                    user_text=ask,
                    assistant_text=reply.format(r="通过" if day % 2 else "失败：磁盘已满", t=ask),
                    source="voice" if hour % 2 else "desktop",
                    ts=base + 3600 * (9 + 2 * index + hour),
                )
                turns[key].append(interaction_id)
        for schedule_id, title, results in SCHEDULES:
            result = results[day % len(results)]
            memory.desk.complete_task(
                f"{schedule_id}-{day}",
                title=title,
                status="failed" if "失败" in result else "succeeded",
                result=result,
                schedule_id=schedule_id,
                run_id=f"run-{days - day + 1:02d}",
                ts=base + 3600 * 7,
            )
    return turns, n


def _personal_turns(memory: Memory, now: float) -> None:
    """What the person said about themselves and their machines (the facts and skills below quote these)."""
    said = [
        ("demo-turn-profile", "我是做嵌入式开发的，回答请简短一点", "好的", 3),
        ("demo-turn-env-4", "书房那台电脑装的是 Ubuntu 24.04", "记下了", 4),
        ("demo-turn-env-2", "书房那台电脑装的是 Ubuntu 24.04", "记下了", 2),
        ("demo-turn-printer", "打印机在客厅，型号是 HP M227", "好的", 1),
        ("demo-turn-skill", "以后发周报前先让我看一眼再发", "明白", 2),
        ("demo-turn-skill2", "整理新闻时只保留科技和财经", "好的", 5),
    ]
    for interaction_id, user_text, reply, days_ago in said:
        memory.desk.remember_interaction(
            interaction_id, user_text=user_text, assistant_text=reply, ts=now - days_ago * DAY
        )


def _file_topics(memory: Memory, turns: dict[str, list[str]]) -> None:
    """Consolidate the backlog as a planner would: one topic per theme, one segment per workday."""
    topic_of = {i: key for key, ids in turns.items() for i in ids}
    titles = {key: title for key, title, *_ in THEMES}
    while True:
        plan = memory.maintenance.maintenance_plan(limit=40)
        if not plan["batch_id"]:
            break
        groups: dict[str, list[tuple[str, str, str]]] = {}  # theme -> (interaction id, workday, user text)
        for item in plan["interactions"]:
            turn = (str(item["interaction_id"]), str(item["workday"]), str(item["user_text"]))
            groups.setdefault(topic_of.get(turn[0], "about-me"), []).append(turn)
        topics: list[DemoTopic] = []
        for key, items in groups.items():
            title = titles.get(key, "关于我和我的设备")
            for workday in sorted({day for _, day, _ in items}):
                same_day = [(i, text) for i, day, text in items if day == workday]
                topics.append(
                    {
                        "topic_id": f"demo-{key}",
                        "title": title,
                        "kind": "chat" if key == "music" else "task",
                        "interaction_ids": [i for i, _ in same_day],
                        "segments": [{"workday": workday, "summary": "；".join(text for _, text in same_day)[:120]}],
                    }
                )
        memory.maintenance.maintenance_commit({"batch_id": plan["batch_id"], "topics": topics, "note": "演示数据整理"})


def _person_decides(memory: Memory) -> None:
    """The person activates one skill draft (through the agent, as they asked in their latest turn: the agent
    names that turn and quotes them) and edits a bundle document."""
    news = next(s for s in memory.skills.list_skills("draft") if s.name == "新闻只选科技财经")
    asked = "好，启用新闻只选科技财经这个技能"
    memory.desk.remember_interaction("demo-turn-enable-news", user_text=asked, assistant_text="已启用", ts=time.time())
    memory.skills.set_skill_status(
        news.skill_id,
        "active",
        actor="agent",
        user_request="启用新闻只选科技财经",
        interaction_id="demo-turn-enable-news",
    )
    bundle = memory.bundles.get_bundle("schedule/ufo-daily", "preferences.md").documents[0]
    memory.bundles.put_bundle_document(
        "schedule/ufo-daily",
        "preferences.md",
        "# 偏好 · 每日 UFO 构建检查\n\n- 只在**失败**时提醒我\n- 警告超过 5 个时也提醒\n",
        expected_revision=bundle.revision,
        actor="user",
    )
