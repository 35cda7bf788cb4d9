"""`context.prepare`: a bounded pack of what one execution round should know.

Sections are filled in priority order (what learning adopted — the
`system_prompt` section, also returned on its own —, standing profile facts, active
skills, the schedule's bundle documents, related facts, topics, task cards,
interactions) and each item is taken whole or not at all, so the pack never
exceeds its budget and nothing is cut mid-sentence. What did not fit is
counted per section.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from store.desk.rows import CoreFact, Document, RecalledCard, RecalledTopic, RecalledTurn, RelatedFact, RelevantSkill
from store.learning.queue import PromptRecord

SECTION_TITLES = {
    "system_prompt": "学到的记忆 / Learned memory",
    "core_facts": "用户画像 / Profile",
    "skills": "已启用技能 / Active skills",
    "bundle": "日程资料 / Schedule bundle",
    "related_facts": "相关事实 / Related facts",
    "topics": "相关话题 / Related topics",
    "task_cards": "相关任务 / Related tasks",
    "interactions": "相关问答 / Related turns",
}
MAX_ITEM_CHARS = 1200


def fact_line(fact: CoreFact) -> str:
    return f"- {fact.content}"


def related_fact_line(fact: RelatedFact) -> str:
    return f"- [{fact.scope}] {fact.content}"


def record_line(record: PromptRecord) -> str:
    return f"- [{record['kind']}] {record['content']}"


def skill_line(skill: RelevantSkill) -> str:
    return f"- {skill.name}: {skill.text}"


def document_line(document: Document) -> str:
    return f"### {document.path}\n{document.content.strip()}"


def topic_line(topic: RecalledTopic) -> str:
    latest = topic.latest_segment
    return f"- {topic.title}" + (f"（{latest.workday}：{latest.summary}）" if latest else "")


def card_line(card: RecalledCard) -> str:
    return f"- {card.title} → {card.status}" + (f"：{card.result}" if card.result else "")


def turn_line(turn: RecalledTurn) -> str:
    return f"- [{turn.workday}] 用户：{turn.user_text} / 助手：{turn.assistant_text}"


def _cut(text: str) -> str:
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


def build_pack(sections: Mapping[str, Sequence[str]], budget: int) -> dict[str, Any]:
    """Fill `budget` characters from `sections`: each item rendered as its line (`fact_line`, …), already in
    relevance order within each section."""
    used = 0
    taken: dict[str, list[str]] = {}
    omitted: dict[str, int] = {}
    for kind in SECTION_TITLES:
        items = sections.get(kind, [])
        header = f"## {SECTION_TITLES[kind]}\n"
        for item in items:
            line = _cut(item) + "\n"
            cost = len(line) + (0 if kind in taken else len(header) + 1)
            if used + cost > budget:
                omitted[kind] = omitted.get(kind, 0) + 1
                continue
            taken.setdefault(kind, []).append(line)
            used += cost
    text = "\n".join(f"## {SECTION_TITLES[k]}\n" + "".join(v) for k, v in taken.items())
    return {
        "budget_chars": budget,
        "used_chars": len(text),
        "text": text,
        "system_prompt": "".join(taken.get("system_prompt", [])),
        "counts": {k: len(v) for k, v in taken.items()},
        "omitted": omitted,
    }
