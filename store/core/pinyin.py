"""A name's pinyin key: its full syllables and its initials, so that sound-alike names meet.

"微信", "威信" and "weixin" share the full form `weixin`; "wx" is its initials. Latin runs are kept as they are
in both forms. The resolver compares these (`recall.pinyin_keys`); the App-KB's view keeps each entry's key as
it writes the entry (`store.appkb.projection`), so that resolving over the view needs no pypinyin, which reads
its dictionaries as it is imported (about 0.3 s of CPU).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from store.core.name_forms import CJK_RE

_RUNS = re.compile(r"[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class PinyinKey:
    full: str
    initials: str


def computed_key(alnum: str) -> PinyinKey:
    """`alnum`'s key (a normalized name, `name_forms.normalize(…).alnum`) as pypinyin reads it (imported here:
    see the module)."""
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
