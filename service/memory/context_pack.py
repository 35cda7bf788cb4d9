"""`context.prepare`: a bounded pack of what one execution round should know.

Sections are filled in priority order (what learning adopted — the
`system_prompt` section, also returned on its own —, standing profile facts, active
skills, the schedule's bundle documents, related facts, topics, task cards,
interactions) and each item is taken whole or not at all, so the pack never
exceeds its budget and nothing is cut mid-sentence. What did not fit is
counted per section.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

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


def _line(kind: str, item: Mapping[str, Any]) -> str:
    render: dict[str, Callable[[Mapping[str, Any]], str]] = {
        "system_prompt": lambda r: f"- [{r['kind']}] {r['content']}",
        "core_facts": lambda f: f"- {f['content']}",
        "related_facts": lambda f: f"- [{f['scope']}] {f['content']}",
        "skills": lambda s: f"- {s['name']}: {s['text']}",
        "bundle": lambda d: f"### {d['path']}\n{d['content'].strip()}",
        "topics": lambda t: (
            f"- {t['title']}"
            + (
                f"（{t['latest_segment']['workday']}：{t['latest_segment']['summary']}）"
                if t.get("latest_segment")
                else ""
            )
        ),
        "task_cards": lambda c: f"- {c['title']} → {c['status']}" + (f"：{c['result']}" if c["result"] else ""),
        "interactions": lambda i: f"- [{i['workday']}] 用户：{i['user_text']} / 助手：{i['assistant_text']}",
    }
    text = render[kind](item)
    return text if len(text) <= MAX_ITEM_CHARS else text[: MAX_ITEM_CHARS - 1] + "…"


def build_pack(sections: Mapping[str, Sequence[Mapping[str, Any]]], budget: int) -> dict[str, Any]:
    """Fill `budget` characters from `sections` (already in relevance order within each)."""
    used = 0
    taken: dict[str, list[str]] = {}
    omitted: dict[str, int] = {}
    for kind in SECTION_TITLES:
        items = sections.get(kind, [])
        header = f"## {SECTION_TITLES[kind]}\n"
        for item in items:
            line = _line(kind, item) + "\n"
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
