"""Chinese names for the codes the service speaks (translation context "Codes").

The service answers agents with stable English codes: event types
(`alias_user_set`), resolution reasons (`weak_evidence`), evidence kinds,
actors, episode end reasons, fact status reasons. The console shows a person
their names, with the code itself in a tooltip or beside it where a person
may need to look it up (docs/protocol.md). A code not listed here is shown as
it is: a newer service may send one this console does not know yet.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication


def event_name(kind: str) -> str:
    """An App-KB event type (`alias_user_set`, `delete` …) as a person says it."""
    names = {
        "alias_user_set": QCoreApplication.translate("Codes", "用户设定叫法"),
        "alias_forgotten": QCoreApplication.translate("Codes", "忘记叫法"),
        "upsert": QCoreApplication.translate("Codes", "写入条目"),
        "delete": QCoreApplication.translate("Codes", "删除条目"),
        "mark_stale": QCoreApplication.translate("Codes", "标为失效"),
        "tool_observed": QCoreApplication.translate("Codes", "观察到启动"),
    }
    return names.get(kind, kind)


def actor_name(actor: str) -> str:
    """Who made a change: the user, an agent, or Jiyi itself."""
    names = {
        "user": QCoreApplication.translate("Codes", "用户"),
        "agent": QCoreApplication.translate("Codes", "智能体"),
        "system": QCoreApplication.translate("Codes", "系统"),
        "dream": QCoreApplication.translate("Codes", "整理"),
    }
    return names.get(actor, actor)


def kind_name(kind: str) -> str:
    """Where an App-KB entry came from (its `kind`), in the trust order's words."""
    names = {
        "user": QCoreApplication.translate("Codes", "用户"),
        "device": QCoreApplication.translate("Codes", "设备清单"),
        "learned": QCoreApplication.translate("Codes", "学习"),
        "alias": QCoreApplication.translate("Codes", "别名"),
    }
    return names.get(kind, kind)


def resolve_reason(reason: str) -> str:
    """Why a name resolved or did not (`app.resolve`'s `reason`)."""
    names = {
        "exact": QCoreApplication.translate("Codes", "精确匹配，明显领先"),
        "empty": QCoreApplication.translate("Codes", "规范化后什么也不剩"),
        "no_candidates": QCoreApplication.translate("Codes", "没有匹配的应用"),
        "weak_evidence": QCoreApplication.translate("Codes", "只有模糊、拼音或向量匹配"),
        "top_not_strong": QCoreApplication.translate("Codes", "最佳匹配证据不足"),
        "low_margin": QCoreApplication.translate("Codes", "几个应用不相上下"),
        "not_installed": QCoreApplication.translate("Codes", "设备上没有安装"),
        "launch_policy": QCoreApplication.translate("Codes", "设置禁止自动打开"),
    }
    return names.get(reason, reason)


def evidence_name(evidence: str) -> str:
    """How a candidate matched the name (`candidates[].evidence`)."""
    names = {
        "exact_alias": QCoreApplication.translate("Codes", "叫法完全一致"),
        "exact_label": QCoreApplication.translate("Codes", "标准名完全一致"),
        "exact_package": QCoreApplication.translate("Codes", "包名完全一致"),
        "exact_package_segment": QCoreApplication.translate("Codes", "包名片段一致"),
        "registered_containment": QCoreApplication.translate("Codes", "包含登记的名称"),
        "fuzzy": QCoreApplication.translate("Codes", "字形相近"),
        "pinyin_full": QCoreApplication.translate("Codes", "全拼相同"),
        "pinyin_initials": QCoreApplication.translate("Codes", "拼音首字母相同"),
        "embedding": QCoreApplication.translate("Codes", "语义相近"),
    }
    return names.get(evidence, evidence)


def end_reason(reason: str) -> str:
    """How a phone-agent run ended (an episode's `reason`, TaskWizard's words)."""
    names = {
        "finished": QCoreApplication.translate("Codes", "完成"),
        "takeover": QCoreApplication.translate("Codes", "人工接管"),
        "max_steps": QCoreApplication.translate("Codes", "步数用尽"),
        "verifier_failed": QCoreApplication.translate("Codes", "验收未通过"),
        "not_reported": QCoreApplication.translate("Codes", "未报告结果"),
        "error": QCoreApplication.translate("Codes", "出错"),
        "cancelled": QCoreApplication.translate("Codes", "已取消"),
        "timeout": QCoreApplication.translate("Codes", "超时"),
    }
    return names.get(reason, reason)


def profile_kind_name(kind: str) -> str:
    """What a profile fact is about (`identity`, `communication`, `work_style`)."""
    names = {
        "identity": QCoreApplication.translate("Codes", "身份"),
        "communication": QCoreApplication.translate("Codes", "沟通方式"),
        "work_style": QCoreApplication.translate("Codes", "工作习惯"),
    }
    return names.get(kind, kind)


def fact_reason(text: str) -> str:
    """Why a fact has its status: the reasons Jiyi writes, in Chinese; a person's own words as written."""
    if text == "awaiting evidence on a second workday":
        return QCoreApplication.translate("Codes", "等待第二个工作日的佐证")
    if text == "adopted by learning":
        return QCoreApplication.translate("Codes", "由学习采用")
    if text == "edited by the owner":
        return QCoreApplication.translate("Codes", "所有者改过")
    match = re.fullmatch(r"independent evidence on (.+)", text)
    if match:
        return QCoreApplication.translate("Codes", "在 {0} 各有独立佐证").format(match[1])
    match = re.fullmatch(r"no corroboration for (\d+) workdays \(reviewed ([^)]+)\)", text)
    if match:
        return QCoreApplication.translate("Codes", "{0} 个工作日没有佐证（{1} 复核）").format(match[1], match[2])
    return text


def learning_operation_name(operation: str) -> str:
    """What a learning candidate would do to memory (`add`, `replace`, `remove`)."""
    names = {
        "add": QCoreApplication.translate("Codes", "新增"),
        "replace": QCoreApplication.translate("Codes", "替换"),
        "remove": QCoreApplication.translate("Codes", "删除"),
        "noop": QCoreApplication.translate("Codes", "无改动"),
    }
    return names.get(operation, operation)


def learning_kind_name(kind: str) -> str:
    """What kind of record a learning candidate is (`fact.profile`, `lesson` …)."""
    names = {
        "fact.profile": QCoreApplication.translate("Codes", "用户画像事实"),
        "fact.project": QCoreApplication.translate("Codes", "项目事实"),
        "fact.environment": QCoreApplication.translate("Codes", "设备环境事实"),
        "lesson": QCoreApplication.translate("Codes", "经验教训"),
        "procedure": QCoreApplication.translate("Codes", "操作步骤"),
        "skill_draft": QCoreApplication.translate("Codes", "技能草稿"),
    }
    return names.get(kind, kind)


def operation_state_name(state: str) -> str:
    """Where one extraction operation stands (`leased`, `submitted` …)."""
    names = {
        "leased": QCoreApplication.translate("Codes", "已领取"),
        "submitted": QCoreApplication.translate("Codes", "已提交"),
        "reviewing": QCoreApplication.translate("Codes", "审阅中"),
        "failed": QCoreApplication.translate("Codes", "失败"),
    }
    return names.get(state, state)


def verifier_name(verdict: str) -> str:
    """What the run's verifier said (`pass`, `fail`, `skipped`)."""
    names = {
        "pass": QCoreApplication.translate("Codes", "通过"),
        "fail": QCoreApplication.translate("Codes", "未通过"),
        "skipped": QCoreApplication.translate("Codes", "未验收"),
    }
    return names.get(verdict, verdict)


def result_class_name(result: str) -> str:
    """How one tool call ended (an experience event's `result_class`: `ok`, `error`, `warned`)."""
    names = {
        "ok": QCoreApplication.translate("Codes", "成功"),
        "error": QCoreApplication.translate("Codes", "出错"),
        "warned": QCoreApplication.translate("Codes", "有警告"),
    }
    return names.get(result, result)


def token_role_name(role: str) -> str:
    """Whose tokens a run's count is (`tokens_by_role`: `actor`, `verifier`, `planner` …)."""
    names = {
        "actor": QCoreApplication.translate("Codes", "执行"),
        "verifier": QCoreApplication.translate("Codes", "验收"),
        "planner": QCoreApplication.translate("Codes", "规划"),
        "summarizer": QCoreApplication.translate("Codes", "总结"),
    }
    return names.get(role, role)


def scope_name(scope: str) -> str:
    """Where a record holds (`global`, or `device:<serial>`) as a person says it."""
    if scope == "global":
        return QCoreApplication.translate("Codes", "全局")
    if scope.startswith("device:"):
        return QCoreApplication.translate("Codes", "设备 {0}").format(scope.removeprefix("device:"))
    return scope


def grant_part_name(part: str) -> str:
    """A part of the learning grant whose fingerprint the 学习 page shows (`extraction`, `review`, `adoption`)."""
    names = {
        "extraction": QCoreApplication.translate("Codes", "提取"),
        "review": QCoreApplication.translate("Codes", "审阅"),
        "adoption": QCoreApplication.translate("Codes", "采用"),
    }
    return names.get(part, part)


def rebuild_count_name(key: str) -> str:
    """What one number of a rebuild's report counts (`jiyi rebuild` and `rebuild-vec` answer the same keys)."""
    domains = {
        "app_kb": QCoreApplication.translate("Codes", "应用库事件"),
        "experience": QCoreApplication.translate("Codes", "运行事件"),
        "recall": QCoreApplication.translate("Codes", "回想事件"),
        "lessons": QCoreApplication.translate("Codes", "经验事件"),
        "desk": QCoreApplication.translate("Codes", "桌面记忆事件"),
        "learning": QCoreApplication.translate("Codes", "学习事件"),
    }
    names = {
        **domains,
        "collections_dropped": QCoreApplication.translate("Codes", "清空的集合"),
        "episodes": QCoreApplication.translate("Codes", "运行"),
        "embedded": QCoreApplication.translate("Codes", "嵌入"),
        "reconciled": QCoreApplication.translate("Codes", "核对"),
        "alias_documents": QCoreApplication.translate("Codes", "叫法向量"),
        "bundle_files_restored": QCoreApplication.translate("Codes", "写回的资料文件"),
        "bundle_files_failed": QCoreApplication.translate("Codes", "写不回的资料文件"),
        "bundle_events_refused": QCoreApplication.translate("Codes", "拒绝的资料事件（路径越出资料夹）"),
    }
    if key.endswith("_skipped") and key.removesuffix("_skipped") in domains:
        return QCoreApplication.translate("Codes", "{0}（损坏，已跳过）").format(domains[key.removesuffix("_skipped")])
    return names.get(key, key)


def source_name(source: str) -> str:
    """Where a desktop assistant's turn came from (`interaction.remember`'s `source`: metadata an agent names)."""
    names = {
        "desktop": QCoreApplication.translate("Codes", "桌面"),
        "voice": QCoreApplication.translate("Codes", "语音"),
        "mobile": QCoreApplication.translate("Codes", "手机"),
        "chat": QCoreApplication.translate("Codes", "聊天"),
    }
    return names.get(source, source)


def read_only_cause(text: str) -> str:
    """Why a home takes no writes (`health.read_only`: "home X is on a read-only file system", "home X is not
    writable by you"), in a person's words; another reason as it is."""
    mounted = re.fullmatch(r"home (.+) is on a read-only file system", text)
    if mounted:
        return QCoreApplication.translate("Codes", "状态目录 {0} 在只读文件系统上").format(mounted.group(1))
    denied = re.fullmatch(r"home (.+) is not writable by you", text)
    if denied:
        return QCoreApplication.translate("Codes", "你没有状态目录 {0} 的写权限").format(denied.group(1))
    return text


def read_only_words(text: str) -> str:
    """A read-only home's whole sentence, as a tooltip of what it disables says it: the cause, then what it means."""
    return QCoreApplication.translate("Codes", "{0}：可以查看，不能写入。").format(read_only_cause(text))
