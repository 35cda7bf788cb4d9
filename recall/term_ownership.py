"""How strongly a task's words point at each app, from the device's own past runs.

The embedding says which past tasks *read* alike; it does not know that on
this phone "黄历" was always 万年历 and "话费" always 中国电信. Term ownership
does: for each term of the new task (CJK bigrams and Latin words, the
reference's keyword terms), the share of past episodes containing it that
belong to the app, weighted by how rare the term is (IDF), averaged over the
task's terms. A term the device has never seen still counts in the average,
so a task made mostly of new words is owned by nobody.

On the public-task evaluation this lifts hit@1 at the same contamination (see
docs/recall.md); the counts live in `store.episodes.recall_terms`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

from store.core.name_forms import CJK_RE, normalize
from store.episodes.recall_terms import TermStats

_RUNS = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff]+")


def goal_terms(text: str) -> list[str]:
    """The distinct terms of a task: CJK bigrams and Latin/digit words of 2+ characters.

    Over the text folded as `keyword_score` folds it (punctuation and spaces
    dropped), so a bigram may span a comma: "黄历，打开" gives "历打". That
    scored better on both evaluation splits than splitting at punctuation
    (0.81 against 0.80 hit@1), by matching phrasing that recurs in variants of a task.
    """
    out: dict[str, None] = {}
    for run in _RUNS.findall(normalize(text).alnum):
        if CJK_RE.match(run):
            out.update(dict.fromkeys(run[i : i + 2] for i in range(len(run) - 1)))
        elif len(run) >= 2:
            out[run] = None
    return list(out)


def ownership(terms: Iterable[str], stats: TermStats) -> dict[str, float]:
    """Per app, the IDF-weighted share of the task's terms that its past episodes hold (0 to 1)."""
    if stats.documents <= 0:
        return {}
    owned: dict[str, float] = {}
    total = 0.0
    for term in terms:
        df = stats.df.get(term, 0)
        idf = max(0.0, math.log((stats.documents + 1) / (df + 0.5)))
        total += idf
        if df:
            for package, n in stats.owners.get(term, {}).items():
                owned[package] = owned.get(package, 0.0) + idf * min(n, df) / df
    return {package: value / total for package, value in owned.items()} if total else {}
