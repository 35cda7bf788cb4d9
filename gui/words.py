"""Wording that several pages share, translated once (translation context "Words").

Chinese punctuation belongs to the Chinese text: lists are joined with the
language's own separator, never with a "，" written in the code.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from PySide6.QtCore import QCoreApplication

NOWRAP = "style='white-space:nowrap'"
"""The attribute of a table cell the pages' HTML never breaks: a number, a time, a package, a column heading
(at 1200×760 a narrow box broke `0.970` into `0.9` / `70` and a heading character by character)."""


def comma_list(parts: Iterable[str]) -> str:
    """`parts` joined the way the language lists things ("，" in Chinese, ", " in English)."""
    return QCoreApplication.translate("Words", "，").join(parts)


def semicolon_list(parts: Iterable[str]) -> str:
    """`parts` that may hold commas themselves, joined ("；" in Chinese, "; " in English)."""
    return QCoreApplication.translate("Words", "；").join(parts)


def dream_step_names() -> dict[str, str]:
    """What each step of a dream pass is called, on every page that shows one."""
    return {
        "alias_overwrites": QCoreApplication.translate("Words", "纠正开错的别名"),
        "merge": QCoreApplication.translate("Words", "合并重复条目"),
        "evict": QCoreApplication.translate("Words", "淘汰过期条目"),
        "fold": QCoreApplication.translate("Words", "折叠旧运行档案"),
        "index_reconcile": QCoreApplication.translate("Words", "向量索引对账"),
        "recalibrate": QCoreApplication.translate("Words", "重新校准回想阈值"),
    }


def labelled(label: str, value: str) -> str:
    """ "label：value" in Chinese, "label: value" in English."""
    return QCoreApplication.translate("Words", "{0}：{1}").format(label, value)


def with_note(text: str, note: str) -> str:
    """ "text（note）" in Chinese, "text (note)" in English."""
    return QCoreApplication.translate("Words", "{0}（{1}）").format(text, note)


def quoted(text: str) -> str:
    """Someone's own words: "「text」" in Chinese, "“text”" in English."""
    return QCoreApplication.translate("Words", "「{0}」").format(text)


def field_html(label: str, value: str) -> str:
    """A paragraph with a bold label and its value (both plain text, escaped here)."""
    return "<p>" + labelled(f"<b>{html.escape(label)}</b>", html.escape(value)) + "</p>"


def unbroken_commands(text: str) -> str:
    """`text` as rich text in which a `jiyi …` command line is never broken across lines (`--home` stays
    whole); everything else wraps as usual."""
    escaped = html.escape(text)
    return re.sub(
        r"jiyi(?: [-A-Za-z0-9_./~=]+)+", lambda m: f"<span style='white-space:nowrap'>{m.group(0)}</span>", escaped
    )


def recall_record_note() -> str:
    """Where redaction applies, said wherever the console quotes recall's record beside an episode: a run's
    episode keeps its goal verbatim (seed 000), what recall derived from goals (its query, the past goals it
    offered) is kept redacted, as the agent was given it."""
    return QCoreApplication.translate(
        "Words", "回想记录里的任务文字（目标、依据）已脱敏，和智能体当时收到的一样；运行档案本身逐字保存。"
    )
