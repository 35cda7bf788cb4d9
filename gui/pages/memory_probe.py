"""Ask desk memory a question, as an agent about to answer would, and see why each item comes back.

Type a question, press 问记忆: what `memory.recall` returns (the related
turns, task cards, topics and facts, then the recent turns), and for each
related item its fused score, its full-text rank and BM25, its similarity
and how far that stands above the question's background. The headline says
whether dense retrieval took part or why not (degraded) and the index lag.
Nothing is written.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from gui.lanes import Lanes, Tasks, describe, page_task
from gui.words import NOWRAP
from service.memory.api import MemoryApi
from service.wire.desk import RecalledCard, RecalledTopic, RecalledTurn, RelatedFact, Signals
from service.wire.recall import DeskRecall
from service.wire.row import value_of

Recalled = RecalledTurn | RecalledCard | RecalledTopic | RelatedFact


def _number(value: object, digits: int) -> str:
    return "–" if value is None else f"{float(value):.{digits}f}"  # type: ignore[arg-type]


class MemoryProbe(QWidget):
    """A question box and the explained answer of `memory.recall`."""

    answered = Signal(object)  # the recall result, or the exception

    def __init__(self, memory: MemoryApi, lanes: Lanes, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.memory = memory
        self.tasks = Tasks(self, lanes, self._show_error)
        self.question = QLineEdit()
        self.question.setPlaceholderText(self.tr("问记忆一个问题，看会想起哪些问答、为什么"))
        self.question.returnPressed.connect(lambda: self.ask())
        self.button = QPushButton(self.tr("问记忆"))
        self.button.clicked.connect(lambda: self.ask())
        self.answer = QTextBrowser()
        self.answer.setPlaceholderText(self.tr("只是询问：不记录"))
        row = QHBoxLayout()
        row.addWidget(self.question, 1)
        row.addWidget(self.button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.answer, 1)

    def ask(self) -> None:
        """Ask the question: refused at once when it is empty; else the button is disabled before anything is
        awaited (a second click cannot ask again) and the answer is read."""
        question = self.question.text().strip()
        if not question:
            missing = self.tr("请输入一个问题。")
            self.answer.setHtml(f"<p>{html.escape(missing)}</p>")
            return
        self.button.setEnabled(False)
        self._answer(question)

    @page_task
    async def _answer(self, question: str) -> None:
        try:
            result = await self.tasks.refresh("answer", self.memory.desk.memory_recall, question, limit=8)
        except Exception as exc:
            self.button.setEnabled(True)
            self._show_error(describe(exc))
            self.answered.emit(exc)
            self.tasks.report(exc, show=False)
            return
        self.button.setEnabled(True)
        self._show(result)

    def _headline(self, result: DeskRecall) -> str:
        info = result.retrieval
        if info.mode == "hybrid":
            how = self.tr("按词语和语义（混合检索）")
        else:
            how = self.tr("只按词语（降级：{0}）").format(result.degraded or "")
        lag = self.tr("待嵌入 {0} 条").format(info.index_lag)
        return self.tr("{0}；{1}；{2} ms").format(how, lag, result.latency_ms)

    def _rows(self, items: Sequence[Recalled], text: Callable[[Any], str]) -> str:
        rows = []
        for item in items:
            s = value_of(item, "signals")
            signals = s if isinstance(s, Signals) else None
            related = value_of(item, "why") in (None, "related")  # topics and facts are related only
            color = "#1a7f37" if related else "#57606a"
            neighbour = signals is not None and signals.neighbour_of
            why = self.tr("最近") if not related else self.tr("相邻") if neighbour else self.tr("相关")
            rows.append(
                f"<tr style='color:{color}'><td>{html.escape(why)}</td>"
                f"<td {NOWRAP}>{_number(value_of(item, 'score'), 3)}</td>"
                f"<td {NOWRAP}>{(signals and signals.fts_rank) or '–'}</td>"
                f"<td {NOWRAP}>{_number(signals and signals.bm25, 2)}</td>"
                f"<td {NOWRAP}>{_number(signals and signals.similarity, 3)}</td>"
                f"<td {NOWRAP}>{_number(signals and signals.standing, 1)}</td>"
                f"<td {NOWRAP}>{_number(signals and signals.above_unrelated, 1)}</td>"
                f"<td>{html.escape(text(item)[:160])}</td></tr>"
            )
        return "".join(rows)

    def _show(self, result: DeskRecall) -> None:
        header = "".join(
            f"<th {NOWRAP}>{html.escape(t)}</th>"
            for t in (
                self.tr("为何"),
                self.tr("得分"),
                self.tr("词序"),
                self.tr("BM25"),
                self.tr("相似"),
                self.tr("突出"),
                self.tr("高于无关"),
                self.tr("内容"),
            )
        )
        parts: list[tuple[str, Sequence[Recalled], Callable[[Any], str]]] = [
            (
                self.tr("问答"),
                result.interactions,
                lambda i: f"{i.ts[:10]} {i.user_text} → {i.assistant_text}",
            ),
            (
                self.tr("任务"),
                result.task_cards,
                lambda c: self.tr("{0} {1}：{2}").format(c.ts[:10], c.title, c.result),
            ),
            (self.tr("话题"), result.related_topics, lambda t: self.tr("{0}：{1}").format(t.title, t.summary)),
            (self.tr("事实"), result.related_facts, lambda f: str(f.content)),
        ]
        sections = []
        for title, items, text in parts:
            if items:
                table = f"<table cellpadding='3'><tr>{header}</tr>{self._rows(items, text)}</table>"
                sections.append(f"<h4>{html.escape(title)}</h4>{table}")
        if not any(i.why == "related" for i in result.interactions):
            nothing = self.tr("记忆里没有与此相关的问答。")
            sections.insert(0, f"<p>{html.escape(nothing)}</p>")
        self.answer.setHtml(f"<p><b>{html.escape(self._headline(result))}</b></p>{''.join(sections)}")
        self.answered.emit(result)

    def _show_error(self, message: str) -> None:
        self.answer.setHtml(f"<p style='color:#cf222e'>{html.escape(message)}</p>")
