"""Semantic recall of past episodes for a new task (docs/recall.md, Recall).

1. App mentions, deterministic: a registry alias or App-KB name (2+
   characters) found in the task as a CJK substring or a Latin word at
   token boundaries, anywhere in it when exactly one of the device's
   installed packages owns the name ("看一下支付宝这个月的账单"). Beyond the
   reference, a name the device's inventory does not settle counts only
   where the task frames it as an app ("打开X", "在X上", "用X", "X里",
   "Xapp") and one package of all Jiyi knows owns it; generic nouns (设置,
   天气, 音乐 …) and decoys (the dish "快手菜", the question "去哪儿玩") never count.
2. With them, as in the reference (mentions never take an episode's place):
   the hard filter — this device's collection, revoked and folded
   episodes are not in it — then the nearest episodes, one candidate per app
   (its nearest episode): score = vector + w × term ownership, where
   vector = 1 − cosine distance and term ownership is how much of the task's
   wording this device's past runs of that app hold (`term_ownership`).
   Below the embedder's threshold nothing is recalled: abstain rather than
   guess. Ties go to the more recent episode. The weight w and the threshold
   are per embedder (e5: 0.10 and 0.9276).

This departs from the reference's 0.75 × vector + 0.25 × keyword over single
episodes (still reported per candidate as `keyword`, and measured side by side
in `bench/episode_recall.py`): its keyword share compares the task with one past goal,
so a long task is diluted by its own extra steps, and it cannot tell that a
word belongs to one app. On the public-task evaluation this took hit@1 from
0.73 to 0.81 with contamination at 0.078 (docs/recall.md). The thresholds
differ because e5 cosines bunch near 0.9 and USE's spread widely.
"""

from __future__ import annotations

import math
import re
import time
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, NotRequired, TypedDict, cast

from recall.confidence import DEFAULT_SCORING, SCORINGS, Confidence, ConfidenceJson, confidence, rank
from recall.embedders import Embedder, tuning
from recall.remote_embedder import EmbeddingServerProblem
from recall.term_ownership import goal_terms, ownership
from recall.vectors import Document, Hit, Metadata, VectorIndex, source_hash
from store.core.name_forms import CJK_RE, fold_text, normalize
from store.episodes.recall_terms import TermStats

EPISODE = "episode"
FETCH = 8
QUERY_CACHE = 512
# (device scope, the task's terms, the apps being weighed or None for all) -> the device's term counts
TermSource = Callable[[str, Sequence[str], Sequence[str] | None], TermStats]
# With the embedding server down, the top app by term ownership is recalled when it owns this much of the task.
KEYWORD_MIN_OWNERSHIP = 0.5
CUE_BEFORE = (
    "打开",
    "启动",
    "进入",
    "登录",
    "使用",
    "用",
    "在",
    "去",
    "到",
    "通过",
    "open",
    "launch",
    "in",
    "on",
    "use",
)
CUE_AFTER = ("app", "应用", "软件", "客户端", "上", "里", "中", "内")
GENERIC = frozenset(
    [
        "设置",
        "天气",
        "音乐",
        "视频",
        "相机",
        "相册",
        "时钟",
        "日历",
        "文件",
        "文件管理",
        "浏览器",
        "电话",
        "短信",
        "信息",
        "邮件",
        "地图",
        "计算器",
        "录音",
        "笔记",
        "便签",
        "商店",
        "应用商店",
        "游戏",
        "阅读",
        "新闻",
        "钱包",
        "健康",
        "运动",
        "主题",
        "闹钟",
        "备忘录",
        "手机管家",
        "安全中心",
        "飞机",
    ]
)
# Phrases that contain an app's name without naming the app: blanked before names are looked for.
DECOYS = ("快手菜", "去哪儿玩", "去哪儿吃", "去哪儿好", "去哪儿买", "去哪儿看")
_TERMS = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff]+")
_LATIN = re.compile(r"[a-z0-9][a-z0-9.+_-]*")


@dataclass(frozen=True)
class RecallCandidate:
    """One recalled item: the apps it points at, and why."""

    source: str  # "mention", "episode", or "keyword" (by the words alone, the embedding server down)
    apps: list[str]
    score: float
    run_id: str | None = None
    goal: str | None = None
    vector: float | None = None
    keyword: float | None = None
    term: str | None = None
    ownership: float | None = None


class CandidateJson(TypedDict):
    """`RecallCandidate` as JSON."""

    source: str
    apps: list[str]
    score: float
    run_id: str | None
    goal: str | None
    vector: float | None
    keyword: float | None
    term: str | None
    ownership: float | None


class RecallJson(TypedDict):
    """`RecallResult` as JSON (a run's recall trace keeps it): its fields, then the apps it recalled."""

    mode: str
    status: str
    query: str
    embedder: str
    candidates: list[CandidateJson]
    latency_ms: float
    error: str | None
    considered: NotRequired[list[CandidateJson]]  # only when asked to explain
    threshold: NotRequired[float | None]
    degraded: str | None
    confidence: ConfidenceJson | None
    recalled_apps: list[str]
    top1_apps: list[str]


@dataclass(frozen=True)
class RecallResult:
    """The recall of one run start. `status`: ok (something recalled), abstained, off, error."""

    mode: str
    status: str
    query: str
    embedder: str
    candidates: list[RecallCandidate] = field(default_factory=list)
    latency_ms: float = 0.0
    error: str | None = None
    # Only when asked to explain: every app weighed (below the threshold too), and the threshold.
    considered: list[RecallCandidate] | None = None
    threshold: float | None = None
    # Why recall went by the task's words alone (the embedding server is down), else None.
    degraded: str | None = None
    # What the threshold was held against: the top app, the runner-up, the margin (recall.confidence); None when
    # no past run came near (or recall went by words alone).
    confidence: Confidence | None = None

    @property
    def recalled_apps(self) -> list[str]:
        return list(dict.fromkeys(a for c in self.candidates for a in c.apps))

    @property
    def top1_apps(self) -> list[str]:
        return list(self.candidates[0].apps) if self.candidates else []

    def to_dict(self) -> RecallJson:
        data = asdict(self)
        if self.considered is None:
            del data["considered"], data["threshold"]
        data["recalled_apps"], data["top1_apps"] = self.recalled_apps, self.top1_apps
        return cast(RecallJson, data)  # its fields (nested ones as objects), then the apps


class MentionIndex:
    """App names and the packages that own them, for finding apps a task names outright."""

    def __init__(self, names: Iterable[tuple[str, str]]) -> None:
        owners: dict[str, set[str]] = {}
        for name, package in names:
            norm = normalize(name).alnum
            if len(norm) >= 2 and norm not in GENERIC:
                owners.setdefault(norm, set()).add(package)
        self._owners = owners
        self._cjk = sorted((n for n in owners if CJK_RE.search(n)), key=lambda n: -len(n))

    def find(self, text: str, installed: Collection[str] | None = None) -> list[tuple[str, str]]:
        """(term, package) that `text` names, in the order it names them, each package once (of names that
        overlap, the longest).

        A name counts anywhere in the text when exactly one of the device's
        `installed` packages owns it ("看一下支付宝这个月的账单"); a name owned by
        one package of all that Jiyi knows counts where the text frames it as
        an app ("打开X", "在X上", "Xapp"), installed or not. A name two
        installed apps share never counts: that is for the resolver to ask.
        """
        folded = " ".join(text.casefold().split())
        found: dict[str, str] = {}
        taken = fold_text(text)
        for decoy in DECOYS:
            taken = taken.replace(decoy, " ")
        for name in self._cjk:
            if name not in taken:
                continue
            owner = self._owner(name, installed, framed=_framed(taken, name))
            if owner and owner not in found.values():
                found[name] = owner
                taken = taken.replace(name, " ")
        words = _LATIN.findall(folded)
        for i, word in enumerate(words):
            if word not in self._owners or CJK_RE.search(word):
                continue
            framed = (i > 0 and words[i - 1] in CUE_BEFORE) or (i + 1 < len(words) and words[i + 1] in CUE_AFTER)
            owner = self._owner(word, installed, framed=framed)
            if owner and owner not in found.values():
                found[word] = owner
        order = fold_text(text)
        return sorted(found.items(), key=lambda item: order.find(item[0]))  # as the task names them

    def _owner(self, name: str, installed: Collection[str] | None, *, framed: bool) -> str | None:
        """The one package `name` stands for here, if any."""
        owners = self._owners[name]
        if installed is not None:
            on_device = [p for p in owners if p in installed]
            if len(on_device) == 1:
                return on_device[0]
        if framed and len(owners) == 1:
            return next(iter(owners))
        return None


def _framed(text: str, name: str) -> bool:
    """Whether some occurrence of `name` in `text` is framed as an app by the words around it."""
    start = text.find(name)
    while start >= 0:
        before, after = text[:start], text[start + len(name) :]
        if start == 0 and not after:
            return True
        if any(before.endswith(cue) for cue in CUE_BEFORE) or any(after.startswith(cue) for cue in CUE_AFTER):
            return True
        start = text.find(name, start + 1)
    return False


def outcome_apps(outcome: Mapping[str, object]) -> list[str]:
    """The packages an episode record names (`apps`), in its order."""
    apps = outcome.get("apps")
    return [a for a in apps if isinstance(a, str)] if isinstance(apps, list | tuple) else []


def _seconds(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


def episode_document(outcome: Mapping[str, object]) -> Document:
    """An episode as the index stores it: goal, apps, then outcome, reason, verifier (the reference's text).

    The vector is of the goal alone: a new task is compared with what was asked
    before, not with package names and verdicts, which a task never contains
    (embedding the whole text cost a third of hit@1 on the public tasks).
    """
    apps = outcome_apps(outcome)
    result = "success" if outcome.get("success") else "failure"
    goal, reason, verifier = outcome.get("goal_text", ""), outcome.get("reason", ""), outcome.get("verifier", "")
    text = f"{goal}\n{' '.join(apps)}\n{result} {reason} {verifier}"
    metadata: Metadata = {
        "first_app": apps[0] if apps else "",
        "apps": " ".join(apps),
        "device_scope": str(outcome.get("device_scope", "device:unknown")),
        "ts": _seconds(outcome.get("ts_end")),
        "success": bool(outcome.get("success")),
        "reason": str(outcome.get("reason", "")),
        "verifier": str(outcome.get("verifier", "skipped")),
        "goal": str(outcome.get("goal_text", "")),
    }
    digest = source_hash(outcome.get("goal_text"), apps, result, outcome.get("reason"), outcome.get("verifier"))
    return Document(str(outcome["run_id"]), text, metadata, digest, embed_text=str(goal))


def keyword_score(query: str, goal: str) -> float:
    """1 when the normalized query is inside the goal, else the share of its terms found there."""
    q, g = normalize(query).alnum, normalize(goal).alnum
    if not q:
        return 0.0
    if q in g:
        return 1.0
    terms: list[str] = []
    for run in _TERMS.findall(q):
        if CJK_RE.match(run):
            terms.append(run)
            terms.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            terms.append(run)
    terms = list(dict.fromkeys(terms))
    return sum(t in g for t in terms) / len(terms) if terms else 0.0


class EpisodeRecall:
    """Recall over one vector index, a mention index and the device's term counts."""

    def __init__(
        self,
        index: VectorIndex,
        embedder: Embedder,
        min_score: float | None = None,
        terms: TermSource | None = None,
        scoring: str = DEFAULT_SCORING,
    ) -> None:
        if scoring not in SCORINGS:
            raise ValueError(f"unknown recall scoring {scoring!r}; choose one of {', '.join(SCORINGS)}")
        self.index, self.embedder, self.terms, self.scoring = index, embedder, terms, scoring
        tuned = tuning(embedder.id)
        # The fixed threshold of the scoring (its confidence is what is held against a threshold).
        self.min_score = tuned.anchor(scoring) if min_score is None else min_score
        self.ownership_weight, self.lead_weight = tuned.ownership_weight, tuned.lead_weight
        # Agents repeat their tasks; a query vector costs ~20 ms with e5, so keep the recent ones.
        self._vectors_cache: OrderedDict[str, Any] = OrderedDict()

    def recall(
        self,
        query: str,
        device: str,
        mentions: MentionIndex,
        *,
        mode: str,
        k: int = 1,
        now: float | None = None,
        explain: bool = False,
        threshold: float | None = None,
        installed: Collection[str] | None = None,
    ) -> RecallResult:
        """The apps the task names, then the device's best `k` episodes (mentions never take an episode's place,
        as in the reference). `installed`: the device's packages, when known (see `MentionIndex.find`).
        `threshold` is the device's calibrated one (`recall.calibration`); None: the embedder's fixed `min_score`.
        `explain` adds every app weighed and the threshold."""
        return self.recall_many(
            [query],
            device,
            mentions,
            mode=mode,
            k=k,
            now=now,
            explain=explain,
            threshold=threshold,
            installed=installed,
        )[0]

    def recall_many(
        self,
        queries: Sequence[str],
        device: str,
        mentions: MentionIndex,
        *,
        mode: str,
        k: int = 1,
        now: float | None = None,
        explain: bool = False,
        threshold: float | None = None,
        installed: Collection[str] | None = None,
    ) -> list[RecallResult]:
        """`recall` for many tasks on one device: one embedding call and one Chroma query for them all.
        Each result's `latency_ms` is its share of the whole. With the embedding server down, the episodes
        are weighed by the task's words alone (`degraded` says why)."""
        started = time.perf_counter()
        floor = self.min_score if threshold is None else threshold
        scope = f"device:{device}"
        named = [
            [RecallCandidate("mention", [package], 1.0, term=term) for term, package in mentions.find(query, installed)]
            for query in queries
        ]
        degraded: str | None = None
        try:
            hit_lists = self.index.query_many(EPISODE, scope, self.vectors(queries), FETCH)
        except EmbeddingServerProblem as exc:
            degraded, floor = str(exc), KEYWORD_MIN_OWNERSHIP
            weighed_lists = [self.by_words(query, scope) for query in queries]
        else:
            now = now or time.time()
            weighed_lists = [
                self.weigh(query, hits, now, scope) for query, hits in zip(queries, hit_lists, strict=True)
            ]
        results = []
        for query, mentioned, weighed in zip(queries, named, weighed_lists, strict=True):
            sure: Confidence | None = None
            if degraded is not None:
                accepted = [c for c in weighed if c.score >= floor][:k]
            else:
                weighed = rank(weighed, self.scoring)
                sure = confidence(weighed, self.scoring, self.lead_weight)
                # The decision is on the top app; when it is sure enough, the next best apps come with it.
                accepted = weighed[:k] if sure is not None and sure.value >= floor else []
            result = replace(self._done(mode, query, [*mentioned, *accepted], 0.0), degraded=degraded, confidence=sure)
            if explain:
                result = replace(result, considered=[*mentioned, *weighed], threshold=floor)
            results.append(result)
        share = round((time.perf_counter() - started) * 1000 / max(1, len(queries)), 3)
        return [replace(r, latency_ms=share) for r in results]

    def by_words(self, query: str, scope: str) -> list[RecallCandidate]:
        """The device's apps by how much of the task's wording their past runs hold, best first (no vectors:
        the recall of last resort while the embedding server is down)."""
        if self.terms is None:
            return []
        terms = goal_terms(query)
        owned = ownership(terms, self.terms(scope, terms, None))
        ranked = sorted(((share, app) for app, share in owned.items() if share > 0), key=lambda sa: (-sa[0], sa[1]))
        return [
            RecallCandidate("keyword", [app], round(share, 4), ownership=round(share, 4))
            for share, app in ranked[:FETCH]
        ]

    def vector(self, query: str) -> Any:
        """The query's vector (the recent ones are kept)."""
        return self.vectors([query])[0]

    def vectors(self, queries: Sequence[str]) -> list[Any]:
        """Query vectors, the recent ones from a cache (agents repeat their tasks), the rest in one batch."""
        missing = list(dict.fromkeys(q for q in queries if q not in self._vectors_cache))
        if missing:
            for query, vector in zip(missing, self.embedder.queries(missing), strict=True):
                self._vectors_cache[query] = vector
        out = []
        for query in queries:
            self._vectors_cache.move_to_end(query)
            out.append(self._vectors_cache[query])
        while len(self._vectors_cache) > max(QUERY_CACHE, len(queries)):
            self._vectors_cache.popitem(last=False)
        return out

    def score(self, query: str, hits: Sequence[Hit], now: float, scope: str | None = None) -> list[RecallCandidate]:
        """`weigh`, ranked by the scoring; all of them when its confidence reaches `min_score`, else none."""
        ranked = rank(self.weigh(query, hits, now, scope), self.scoring)
        sure = confidence(ranked, self.scoring, self.lead_weight)
        return ranked if sure is not None and sure.value >= self.min_score else []

    def weigh(
        self,
        query: str,
        hits: Sequence[Hit],
        now: float,
        scope: str | None = None,
        terms_of: TermSource | None = None,
    ) -> list[RecallCandidate]:
        """One candidate per app (its nearest episode), scored vector + weight × ownership, best first.

        Without a term source (or a scope) ownership is 0 and the score is the
        vector similarity alone; `terms_of` stands in for the engine's own term
        source (a leave-one-out leaves the run out of the counts too). Nothing
        is dropped here: see `score`.
        """
        source = terms_of or self.terms
        nearest: dict[tuple[str, ...], tuple[float, float, Hit]] = {}
        for hit in hits:
            apps = tuple(a for a in str(hit.metadata.get("apps", "")).split() if a)
            vector = max(0.0, min(1.0, 1.0 - hit.distance))
            recency = math.exp(-0.02 * max(0.0, (now - float(hit.metadata.get("ts", 0.0))) / 86400))
            if apps and (apps not in nearest or (vector, recency) > nearest[apps][:2]):
                nearest[apps] = (vector, recency, hit)
        if not nearest:
            return []
        terms = goal_terms(query)
        packages = sorted({a for apps in nearest for a in apps})
        stats = source(scope, terms, packages) if source and scope else TermStats()
        owned = ownership(terms, stats)
        out: list[tuple[float, float, RecallCandidate]] = []
        for apps, (vector, recency, hit) in nearest.items():
            share = max(owned.get(a, 0.0) for a in apps)
            score = vector + self.ownership_weight * share
            goal = str(hit.metadata.get("goal", ""))
            candidate = RecallCandidate(
                "episode",
                list(apps),
                round(score, 4),
                hit.id,
                goal,
                round(vector, 4),
                round(keyword_score(query, goal), 4),
                ownership=round(share, 4),
            )
            out.append((score, recency, candidate))
        out.sort(key=lambda item: (-item[0], -item[1]))
        return [candidate for _, _, candidate in out]

    def _done(self, mode: str, query: str, candidates: list[RecallCandidate], latency_ms: float) -> RecallResult:
        status = "ok" if candidates else "abstained"
        return RecallResult(mode, status, query, self.embedder.id, candidates, round(latency_ms, 3))
