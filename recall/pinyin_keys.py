"""Pinyin forms of a name: full syllables and initials, so that sound-alike names meet.

"微信", "威信" and "weixin" share the full form `weixin`; "wx" is its initials.
Latin runs are kept as they are in both forms.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from recall.normalize import CJK_RE

_RUNS = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class PinyinKey:
    full: str
    initials: str


@lru_cache(maxsize=65536)
def pinyin_key(alnum: str) -> PinyinKey | None:
    """Pinyin of a normalized name; None when it has no Chinese characters."""
    if not CJK_RE.search(alnum):
        return None
    # pypinyin reads its dictionaries as it is imported (~0.2 s of CPU): only the resolver's index needs them
    from pypinyin import Style, lazy_pinyin

    full: list[str] = []
    initials: list[str] = []
    for run in _RUNS.findall(alnum):
        if CJK_RE.match(run):
            syllables = lazy_pinyin(run, style=Style.NORMAL, errors="ignore")
            full.extend(syllables)
            initials.extend(s[0] for s in syllables if s)
        else:
            full.append(run)
            initials.append(run)
    return PinyinKey("".join(full), "".join(initials))
