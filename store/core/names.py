"""One normalization for names: what the App-KB stores, looks up, forgets and keeps history by, and what the
resolver compares (docs/protocol.md, "Names and paths").

A name is read as a person sees it. Characters that draw nothing, or nothing of
their own, are removed first: default-ignorable code points (zero-width spaces
and joiners, the combining grapheme joiner U+034F, soft hyphens, word joiners),
variation selectors, bidi controls, the Hangul fillers (U+115F, U+1160, U+3164,
U+FFA0) and blank look-alikes (U+2800), tags, and combining marks on a CJK,
kana or Hangul character (they draw accents no such name carries). Then NFKC
(full width → half width, compatibility ideographs and radicals → the common
ideograph), traditional → simplified Chinese, casefold. `微\\ufe0f信`,
`微信\\u0301`, `微\\u3164信` and `微信` are one name.

`skeleton` goes one step further for the look-alike check: letters of another
script drawn like Latin ones (Cyrillic `е`, Greek `ο`) and kana drawn like
ideographs (`ロ`, `エ`) are folded onto them, so that `WеChat` with a Cyrillic
`е` has the skeleton of `WeChat`. A name whose skeleton is an existing name's
but which is not that name is a look-alike.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _t2s() -> Any:
    """OpenCC's traditional → simplified converter, made when a name is first read (importing it costs start-up:
    `jiyi --help` imports this module through the errors it can raise)."""
    import opencc

    return opencc.OpenCC("t2s")


# Default_Ignorable_Code_Point (Unicode DerivedCoreProperties), the bidi controls among them, and blank fillers.
IGNORABLE = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f"
    "\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
)
_IGNORABLE_RE = re.compile(f"[{IGNORABLE}]+")
# Ideographs, radicals, kana, bopomofo, Hangul: scripts whose names carry no combining accents.
_CJK = (
    "\u1100-\u11ff\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3130-\u318f\u31a0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\uac00-\ud7af\uf900-\ufaff\uff66-\uffdc\U00020000-\U0003134f"
)
_MARKS_ON_CJK = re.compile(
    f"(?<=[{_CJK}])[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f\u3099\u309a]+"
)


def strip_invisible(text: str) -> str:
    """`text` without the characters that draw nothing of their own (see the module docstring)."""
    if text.isascii():
        return text
    text = _IGNORABLE_RE.sub("", text)
    return _MARKS_ON_CJK.sub("", text)


def clean_name(text: str) -> str:
    """A name as it is stored and shown: invisible characters removed, runs of whitespace made one space."""
    return " ".join(strip_invisible(unicodedata.normalize("NFC", text or "")).split())


def fold_name(text: str) -> str:
    """The folded form every comparison of names starts from: invisibles removed, NFKC, simplified, casefolded
    (whitespace kept, so that a reader can still tell words apart)."""
    text = strip_invisible(text or "")
    if not text.isascii():
        text = strip_invisible(unicodedata.normalize("NFKC", text))
        text = str(_t2s().convert(text))
    return text.casefold()


@lru_cache(maxsize=65536)
def normalize_term(value: str) -> str:
    """A name's identity in the App-KB (stored `term_norm`, event subject, forget and history key):
    `fold_name` with all whitespace removed (cached: names recur)."""
    return "".join(fold_name(value or "").split())


# Letters of other scripts drawn like Latin letters or digits (from Unicode's confusables.txt, the
# single-character ones among the common scripts), and kana drawn like ideographs.
LOOKALIKES = {
    # Cyrillic
    "а": "a",
    "в": "b",
    "г": "r",
    "е": "e",
    "ё": "e",
    "һ": "h",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "к": "k",
    "л": "n",
    "м": "m",
    "н": "h",
    "о": "o",
    "п": "n",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ь": "b",
    "ӏ": "l",
    "ɡ": "g",
    # Greek
    "α": "a",
    "β": "b",
    "γ": "y",
    "ε": "e",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "ϲ": "c",
    "ϳ": "j",
    "ω": "w",
    # Armenian
    "օ": "o",
    "ս": "u",
    "հ": "h",
    "ց": "g",
    "ո": "n",
    # Latin look-alikes of other letters
    "ı": "i",
    "ȷ": "j",
    "ʏ": "y",
    "ᴀ": "a",
    "ᴄ": "c",
    "ᴏ": "o",
    "ᴜ": "u",
    "ᴠ": "v",
    "ᴡ": "w",
    "ᴢ": "z",
    # Kana and Hangul drawn like ideographs
    "ロ": "口",
    "エ": "工",
    "カ": "力",
    "タ": "夕",
    "ニ": "二",
    "ハ": "八",
    "ト": "卜",
    "ー": "一",
    "ㅡ": "一",
    "ㅁ": "口",
    "〇": "o",
}
LOOKALIKE_TABLE = str.maketrans(LOOKALIKES)


def fold_lookalikes(text: str) -> str:
    """`text` (already casefolded) with other scripts' look-alike letters replaced by what they look like."""
    return text if text.isascii() else text.translate(LOOKALIKE_TABLE)


def skeleton(text: str) -> str:
    """What a name looks like: its `normalize_term` with look-alike letters folded (see the module docstring)."""
    return fold_lookalikes(normalize_term(text))
