"""Normalization of app names and queries: what the resolver compares, and what the App-KB's view keeps the
pinyin of (`store.core.pinyin`, so that resolving needs no pypinyin for the App-KB's names).

`store.core.names.fold_name` first (invisible characters removed, NFKC,
traditional → simplified Chinese, casefold: the App-KB's own normalization, so
a name the resolver matches is the name the store forgets), whitespace
dropped, and the filler people wrap names in removed ("打开…", "…app", "…客户端").
A second variant keeps only [0-9a-z] and CJK.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from store.core.names import fold_name

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_RE = re.compile(f"[{_CJK}]")
_NOT_ALNUM_CJK = re.compile(f"[^0-9a-z{_CJK}]+")
_PREFIXES = ("打开", "启动", "开启", "进入", "open ", "launch ", "start ")
_CJK_SUFFIXES = ("客户端", "应用", "软件")
_LATIN_SUFFIX = re.compile(r"(?:(?<=\s)|(?<=[" + _CJK + r"]))(?:app|apk|application)$")
FILLER = frozenset({"官方", "官方版", "手机版", "正式版", "的", "app", "软件", "应用", "客户端"})


def has_cjk(text: str) -> bool:
    return bool(CJK_RE.search(text))


def _strip_filler(text: str) -> str:
    text = text.strip()
    for prefix in _PREFIXES:
        if text.startswith(prefix) and len(text) > len(prefix) + 1:
            text = text[len(prefix) :].strip()
            break
    text = _LATIN_SUFFIX.sub("", text).strip()
    for suffix in _CJK_SUFFIXES:
        if text.endswith(suffix) and len(text) - len(suffix) >= 2:
            text = text[: -len(suffix)].strip()
            break
    return text


@dataclass(frozen=True)
class Normalized:
    """A name in the two forms the resolver compares."""

    norm: str
    alnum: str


def fold_text(text: str) -> str:
    """Running text folded like names (`fold_name`, [0-9a-z] and CJK only) but nothing stripped."""
    return _NOT_ALNUM_CJK.sub("", fold_name(text or ""))


@lru_cache(maxsize=65536)
def normalize(text: str) -> Normalized:
    """Normalize an app name or query (cached: names recur)."""
    folded = " ".join(fold_name(text or "").split())
    norm = "".join(_strip_filler(folded).split())
    return Normalized(norm, _NOT_ALNUM_CJK.sub("", norm))
