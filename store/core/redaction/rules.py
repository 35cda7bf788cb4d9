"""The rules of the sensitive-text filter: one per format, each with the words that must be present for it to run.

Every rule is written so that matching it is linear in the length of the
text. Each pattern starts with a literal or a small set of characters (so the
engine skips quickly to where a match can start) and checks what may precede
it with a fixed-width look-behind *after* that first character: an attempt
never starts inside a run it would have to read again from the next position.
Variable-length parts are possessive (`++`, `*+`) or bounded, and alternatives
inside a repetition cannot match the same characters, so a failed attempt
never backtracks over what it read. `tests/unit/store/test_redact.py` times
each rule on the inputs that would be quadratic otherwise.

Rules marked `lowered` run on the lower-case twin of the text (same offsets):
case-insensitive matching that keeps the engine's fast literal search. A rule
marked `value` redacts only its group `v` (the secret after its key word, so
that "支付密码 [redacted:secret]" still says what was there).

The rules read the text as `store.core.redaction.redactor` prepares it: zero-width and
other invisible characters gone, full-width ASCII narrowed, U+3000 and
no-break spaces read as spaces, Cyrillic and Greek look-alike letters read as
the Latin ones they are drawn like.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass

DIGITS = tuple("0123456789")
_B64 = "[A-Za-z0-9+/]"
# Between a key word and its value: `: `, `=`, `=>`, `：`, with optional quotes (JSON, YAML, env files).
_ASSIGN = r"""["']?[ \t]{0,5}(?:=>|[:=：])[ \t]{0,5}["']?"""
_REGION = re.compile("1[1-5]|2[1-3]|3[1-7]|4[1-6]|5[0-4]|6[1-5]|71|8[1-3]|91")  # the province: an ID's first two digits
_DATE = "(?:0[1-9]|1[0-2])(?:0[1-9]|[12][0-9]|3[01])"  # MMDD
_ID_DATE = re.compile(f"(?:18|19|20)[0-9]{{2}}{_DATE}")
_MOBILE_REST = "[3-9][0-9](?:[ -]?[0-9]{4}){2}(?![0-9])"  # after the 1: one run of 11, or spaced/dashed 3-4-4
_CODE_ZH = (
    "验证码",
    "动态口令",
    "校验码",
    "动态码",
    "动态密码",
    "确认码",
    "短信码",
    "授权码",
    "安全码",
    "激活码",
    "取件码",
    "提取码",
)
_CODE_EN = ("verification code", "security code", "auth code", "passcode", "code", "otp", "totp", "pin", "2fa", "mfa")
_SECRET_WORDS = (
    r"api[_-]?key|apikey|access[_-]?token|auth[_-]?token|refresh[_-]?token|client[_-]?secret|"
    r"secret[_-]?key|private[_-]?key|token|secret|password|passwd|pwd|passphrase|pass(?<![a-z]pass)"
)
# Between a number's word and the number: a label ("号码", "no.", "number"), up to two links ("是：", "is:"), and an
# opening bracket ("验证码（482913）", "passport number: E…", "您的验证码是[482913]").
_LABEL = (
    r"(?:[ \t]{0,2}(?:号码|号|编号|no(?:\.|(?![a-z]))|nr(?:\.|(?![a-z]))|number|num(?:\.|(?![a-z]))|\#|id(?![a-z])))?"
)
_JOINED = r"(?:[ \t]{0,3}(?:is(?![a-z])|was(?![a-z])|[:：=\#]|是|为)){0,2}[ \t]{0,3}"
_OPENING = r"[(\[（【「『“\"'<《]"
_JOIN = rf"{_JOINED}{_OPENING}?[ \t]{{0,2}}"
# `_JOIN` for a rule that replaces its whole match: the bracket it opened (`open`) is closed by `_CLOSE`, so that
# 验证码（482913） goes whole rather than leaving its "）".
_JOIN_OPEN = rf"{_JOINED}(?P<open>{_OPENING})?[ \t]{{0,2}}"
_CLOSE = r"(?(open)[ \t]{0,2}[)\]）】」』”\"'>》]?)"
_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"
_LUHN_DOUBLE = str.maketrans("0123456789", "0246813579")
_NOT_DIGIT = re.compile(r"[^0-9]")
_DIGIT_GROUP = re.compile(r"[0-9]+")
Part = tuple[int, int] | None  # what a check keeps of a match: the sensitive part's span in it, or nothing


def _english(words: tuple[str, ...]) -> str:
    """English key words as whole words: not preceded or followed by a letter."""
    spelled = [w.replace(" ", "[ \t]") for w in words]
    return "|".join(f"{w}(?<![a-z]{w})(?![a-z])" for w in spelled)


def _id_number_valid(match: str) -> bool:
    """An 18-digit ID number's check digit (ISO 7064 MOD 11-2); 15-digit ones carry none."""
    number = _NOT_DIGIT.sub("", match[:-1]) + match[-1]
    if not _REGION.fullmatch(number[:2]):
        return False
    if len(number) == 15:
        return True
    total = sum(int(d) * w for d, w in zip(number[:17], _ID_WEIGHTS, strict=True))
    return _ID_CHECK[total % 11] == number[17].upper()


def _whole(valid: Callable[[str], bool]) -> Callable[[str], Part]:
    """A check that keeps the whole match when `valid` says so."""
    return lambda match: (0, len(match)) if valid(match) else None


def _luhn_valid(digits: str) -> bool:
    # Every second digit from the right is doubled (digit sum of the double: 0246813579).
    return (sum(map(int, digits[-1::-2])) + sum(map(int, digits[-2::-2].translate(_LUHN_DOUBLE)))) % 10 == 0


def _card(match: str) -> Part:
    """The longest run of whole digit groups in `match` that is a card number (13–19 digits from 2–6,
    Luhn-valid), so that a card followed by its CVV or expiry ("… 1111 123") is still found. Runs of
    more than six groups are taken whole only (one digit a group is no card's layout)."""
    groups = [m.span() for m in _DIGIT_GROUP.finditer(match)]
    count = len(groups)
    pairs = [(0, count - 1)] if count > 6 else [(i, j) for i in range(count) for j in range(i, count)]
    best: Part = None
    for first, last in pairs:
        start, end = groups[first][0], groups[last][1]
        if best is not None and end - start <= best[1] - best[0]:
            continue
        digits = match[start:end].replace(" ", "").replace("-", "")
        if 13 <= len(digits) <= 19 and digits[0] in "23456" and _luhn_valid(digits):
            best = (start, end)
    return best


def _long_key(match: str) -> bool:
    """An `sk-` key of 16 characters or more, a line break inside it (a wrapped key) not counted."""
    return len(match) - match.count("\n") - match.count("\r") >= 19


def _not_a_card(value: str) -> Part:
    """After a card word: the whole number, unless a Luhn card is inside it (the card rule keeps what follows
    a card, such as its CVV)."""
    return None if _card(value) is not None else (0, len(value))


def _not_id_shaped(match: str) -> bool:
    """18 digits that are not an ID number's layout (a province, then a birth date from 1800 on)."""
    digits = match.replace(" ", "")
    return not (_REGION.fullmatch(digits[:2]) and _ID_DATE.fullmatch(digits[6:14]))


def _basic_credentials(value: str) -> Part:
    """An HTTP Basic credential: base64 of `user:password`."""
    try:
        decoded = base64.b64decode(value + "=" * (-len(value) % 4), validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return None
    return (0, len(value)) if ":" in decoded and decoded.isprintable() else None


def _token_like(match: str) -> bool:
    """After a bot's number and its colon, a secret with letters in it (not a run of digits: a time, a ratio)."""
    return any(c.isalpha() for c in match.partition(":")[2])


def _hkid(match: re.Match[str]) -> Part:
    """A Hong Kong identity card number (one or two letters before the match's digits, not part of a longer
    word), when its check digit is right."""
    text, start = match.string, match.start()
    letters = 2 if start >= 2 and text[start - 2].isascii() and text[start - 2].isalpha() else 1
    first = start - letters
    if first > 0 and text[first - 1].isascii() and text[first - 1].isalnum():
        return None
    return (first, match.end()) if _hkid_valid(text[first : match.end()]) else None


def _hkid_valid(match: str) -> bool:
    """A Hong Kong identity card number's check digit (in brackets after one or two letters and six digits)."""
    body = "".join(c for c in match.upper() if c.isalnum())
    letters, digits, check = body[:-7], body[-7:-1], body[-1]
    values = [36] * (2 - len(letters)) + [ord(c) - 55 for c in letters] + [int(d) for d in digits]
    total = sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True))
    return "0123456789A"[-total % 11] == check


def _base64_like(match: str) -> bool:
    """One run of at least 120 base64 characters, or two or more lines of at least 40 (key material)."""
    lines = [line.strip(" \t\r=") for line in match.split("\n")]
    return any(len(line) >= 120 for line in lines) or sum(len(line) >= 40 for line in lines) >= 2


@dataclass(frozen=True)
class Rule:
    """One format of sensitive text.

    `needs`: the rule runs only when one of these appears in the lower-cased
    text (a fast substring search); `check`: what of a match is sensitive
    (a checksum, a shape), None for none of it; `lowered`: the pattern reads
    the lower-cased text; `value`: only the group `v` is sensitive (and the
    check, if any, reads that group); `pick`: what of the text is sensitive,
    read from the match and the text around it (`store.core.redaction.said`),
    as a span of the text, or None.
    """

    kind: str
    pattern: re.Pattern[str]
    needs: tuple[str, ...] = ()
    check: Callable[[str], Part] | None = None
    lowered: bool = False
    value: bool = False
    pick: Callable[[re.Match[str]], Part] | None = None


def _rule(
    kind: str,
    pattern: str,
    needs: tuple[str, ...] = (),
    check: Callable[[str], Part] | None = None,
    *,
    lowered: bool = False,
    value: bool = False,
    pick: Callable[[re.Match[str]], Part] | None = None,
) -> Rule:
    return Rule(kind, re.compile(pattern, re.VERBOSE), needs, check, lowered, value, pick)


RULES: tuple[Rule, ...] = (
    # A whole PEM / OpenSSH / PGP private-key block, header to footer; when the footer is missing, to the end.
    _rule(
        "private_key",
        r"""-----BEGIN[ A-Z0-9]{0,40}PRIVATE[ ]KEY(?:[ ]BLOCK)?-----
            (?:[^-]++|-++(?!END))*+
            (?:-++END[ A-Z0-9]{0,40}PRIVATE[ ]KEY(?:[ ]BLOCK)?-----)?""",
        ("private key",),
    ),
    # Long base64 (one run of 120+), or key material without its header (lines of 40+ base64 characters).
    _rule(
        "base64",
        rf"""{_B64}(?<![A-Za-z0-9+/=]{_B64}) {_B64}{{39,}}+ ={{0,2}}
            (?:[ \t]*+\r?\n[ \t]*+ {_B64}{{4,}}+ ={{0,2}} (?=[ \t]{{0,8}}(?:\r?\n|\Z)) )*+""",
        check=_whole(_base64_like),
    ),
    _rule("jwt", r"eyJ(?<![A-Za-z0-9_-]eyJ) [A-Za-z0-9_-]++ \.[A-Za-z0-9_-]++ \.[A-Za-z0-9_-]*+", ("eyj",)),
    # A line break inside the key (a pasted, wrapped key) does not end it.
    _rule(
        "api_key",
        r"sk-(?<![A-Za-z0-9_-]sk-) [A-Za-z0-9_-]{4,}+ (?:\r?\n[A-Za-z0-9_-]{4,}+)*+",
        ("sk-",),
        _whole(_long_key),
    ),
    _rule("api_key", r"xox(?<![A-Za-z0-9_]xox) [abposr]-[A-Za-z0-9-]{10,}+", ("xox",)),
    _rule("api_key", r"AIza(?<![A-Za-z0-9_]AIza) [A-Za-z0-9_-]{35} (?![A-Za-z0-9_-])", ("aiza",)),
    _rule("github_token", r"gh(?<![A-Za-z0-9_]gh) [pousr]_[A-Za-z0-9]{30,}+", ("gh",)),
    _rule("github_token", r"github_pat_(?<![A-Za-z0-9_]github_pat_) [A-Za-z0-9_]{30,}+", ("github_pat_",)),
    _rule(
        "aws_key",
        r"A(?<![A-Za-z0-9]A) (?:KIA|SIA|BIA|CCA|GPA|IDA|IPA|NPA|NVA|PKA|ROA)[A-Z0-9]{16} (?![A-Za-z0-9])",
    ),
    # An AWS secret key is 40 characters of base64 that only the words before it tell apart.
    _rule(
        "aws_secret",
        rf"""(?: aws(?<![a-z0-9]aws)[ _.-]{{0,3}}secret (?:[ _.-]{{0,3}}access)? (?:[ _.-]{{0,3}}key)?
               | secret(?<![a-z0-9]secret)[ _.-]{{0,3}}access[ _.-]{{0,3}}key )
            (?:{_ASSIGN}|[ \t]{{1,5}}) [a-z0-9/+]{{40}} (?![a-z0-9/+])""",
        ("secret",),
        lowered=True,
    ),
    _rule(
        "secret",
        rf"""(?:{_SECRET_WORDS}) {_ASSIGN} [^\s"']++""",
        ("key", "token", "secret", "pass", "pwd"),
        lowered=True,
    ),
    # HTTP Basic credentials: after "Authorization", or any "Basic <base64 of user:password>".
    _rule(
        "secret",
        r"""authorization(?<![a-z]authorization) ["']?[ \t]{0,3}[:=][ \t]{0,3}["']?basic[ \t]{0,5}
            (?P<v>[a-z0-9+/]{4,}+={0,2})""",
        ("authorization",),
        lowered=True,
        value=True,
    ),
    _rule(
        "secret",
        r"[Bb](?<![A-Za-z0-9][Bb])(?:ASIC|asic)[ \t:=]{0,5}(?P<v>[A-Za-z0-9+/]{8,}+={0,2})",
        ("basic",),
        _basic_credentials,
        value=True,
    ),
    # A URL with a password in it (databases, brokers, any host: a name, localhost or an address).
    _rule(
        "password",
        r"""(?<=[A-Za-z0-9+.-]):// [^\s:/@"'<>]{0,64}+ : (?P<v>[^\s/@"'<>]{1,128}+) @""",
        ("://",),
        value=True,
    ),
    _rule(
        "webhook",
        r"hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{16,}+",
        ("hooks.slack",),
    ),
    _rule(
        "webhook",
        r"discord(?:app)?\.com/api/webhooks/[0-9]{5,}+/[A-Za-z0-9_-]{20,}+",
        ("webhooks",),
    ),
    _rule("api_key", r"[sr]k_(?<![A-Za-z0-9][sr]k_) (?:live|test)_[A-Za-z0-9]{10,}+", ("k_live_", "k_test_")),
    _rule("api_key", r"whsec_(?<![A-Za-z0-9]whsec_) [A-Za-z0-9]{16,}+", ("whsec_",)),
    _rule(
        "api_key",
        r"""(?:accountkey|sharedaccesskey|sharedaccesssignature|sig)(?<![a-z]accountkey)(?<![a-z]sharedaccesskey)
            (?<![a-z]sharedaccesssignature)(?<![a-z]sig) [ \t]{0,3}=[ \t]{0,3} (?P<v>[a-z0-9+/%=]{16,}+)""",
        ("accountkey", "sharedaccess", "sig"),
        lowered=True,
        value=True,
    ),
    _rule("gitlab_token", r"gl(?<![A-Za-z0-9_]gl) (?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_-]{16,}+", ("gl",)),
    _rule("api_key", r"hf_(?<![A-Za-z0-9_]hf_) [A-Za-z0-9]{20,}+", ("hf_",)),
    _rule("api_key", r"npm_(?<![A-Za-z0-9_]npm_) [A-Za-z0-9]{30,}+", ("npm_",)),
    _rule("api_key", r"SG\.(?<![A-Za-z0-9_]SG\.) [A-Za-z0-9_-]{16,}+ \.[A-Za-z0-9_-]{16,}+", ("sg.",)),
    # A Telegram bot token: the bot's number, a colon, 35 characters (30 and more: one mistyped is still one).
    _rule("api_key", r"[0-9](?<![0-9][0-9]) [0-9]{6,11}: [A-Za-z0-9_-]{30,}+", (":",), _whole(_token_like)),
    # A bearer token (with a digit in it, so that "bearers of good news" stays), spaced or not.
    _rule(
        "bearer",
        r"bearer(?<![a-z0-9]bearer) [ \t]{0,5} (?=[a-z._~+/=-]{0,40}[0-9]) [a-z0-9._~+/=-]{8,}+",
        ("bearer",),
        lowered=True,
    ),
    # A mainland mobile number; after +86, 0086 or 86 (the prefix itself stays: it is not sensitive alone).
    _rule("mobile", rf"1(?<![0-9]1) {_MOBILE_REST}", ("1",)),
    _rule("mobile", rf"86(?:(?<![0-9]86)|(?<![0-9]0086)(?<=0086)) [ -]?1{_MOBILE_REST}", ("86",)),
    _rule(
        "email",
        r"""[A-Za-z0-9._%+-](?<![A-Za-z0-9._%+-][A-Za-z0-9._%+-]) [A-Za-z0-9._%+-]*+
            @ (?:[A-Za-z0-9-]++\.)+ [A-Za-z]{2,24}+ (?![A-Za-z0-9-])""",
        ("@",),
    ),
    _rule(
        "order",
        r"""(?:订单|order(?<![a-z]order)) [ \t]{0,3}(?:号|no\.?|id|number|\#)?[ \t]{0,3}[:：\#]?[ \t]{0,3}
            (?=[a-z-]{0,30}[0-9]) [a-z0-9-]{4,}+""",
        ("order", "订单"),
        lowered=True,
    ),
    # Verification codes and one-time passwords, the name before the code ...
    _rule(
        "code",
        rf"""(?:{"|".join(_CODE_ZH)}|{_english(_CODE_EN)})
            {_LABEL} {_JOIN_OPEN} [0-9](?:[ ]?[0-9]){{3,7}}(?![0-9]) {_CLOSE}""",
        _CODE_ZH + _CODE_EN,
        lowered=True,
    ),
    # ... or after it: "482913是您的验证码", "482913 is your login code".
    _rule(
        "code",
        rf"""[0-9](?<![0-9][0-9])[0-9]{{3,7}}(?![0-9]) [ \t]{{0,3}}
            (?=[是为您你的登注本验校动确短授安激取提i])  # one test turns away digits followed by anything else
            (?: (?:是|为)?(?:您|你)?的?(?:登录|注册|本次)?(?:{"|".join(_CODE_ZH)})
              | is[ \t]{{1,3}}your[ \t]{{1,3}}(?:[a-z]{{1,20}}[ \t]{{1,3}})?(?:{_english(_CODE_EN)}) )""",
        _CODE_ZH + _CODE_EN,
        lowered=True,
    ),
    # A card's security code after its name (three or four digits), and a US social security number after its.
    _rule(
        "code",
        rf"""(?:c(?<![a-z]c)vv2?|c(?<![a-z]c)vc2?|c(?<![a-z]c)sc|安全码|卡背后三位|卡背面三位) {_JOIN}
            (?P<v>[0-9]{{3,4}}) (?![0-9])""",
        ("cvv", "cvc", "csc", "安全码", "三位"),
        lowered=True,
        value=True,
    ),
    _rule(
        "id_number",
        rf"""(?:s(?<![a-z]s)sn|social[ \t]security(?:[ \t](?:number|no\.?))?) {_JOIN}
            (?P<v>[0-9]{{3}}[ -]?[0-9]{{2}}[ -]?[0-9]{{4}}) (?![0-9])""",
        ("ssn", "social security"),
        lowered=True,
        value=True,
    ),
    # A Chinese resident ID: 18 digits with a valid check digit, or the older 15; a province and a date inside.
    _rule(
        "id_number",
        rf"""[1-9](?<![0-9][1-9]) [0-9]{{5}}
            (?: [ -]?(?:18|19|20)[0-9]{{2}}{_DATE}[ -]?[0-9]{{3}}[0-9Xx] | [0-9]{{2}}{_DATE}[0-9]{{3}} )
            (?![0-9A-Za-z])""",
        DIGITS,
        _whole(_id_number_valid),
    ),
    # A payment card: 13–19 digits (up to two spaces or dashes between) starting 2–6, Luhn-valid.
    _rule("card_number", r"[2-6](?<![0-9][2-6]) (?:[ -]{0,2}[0-9]){12,18} (?![0-9])", DIGITS, _card),
    # Any 16–19 digits after a card word, Luhn or not (a mistyped number is still someone's card).
    _rule(
        "card_number",
        rf"""(?:卡号|银行卡|信用卡|储蓄卡|借记卡|card[ \t]?(?:number|no\.?)) (?:号码|号)? {_JOIN}
            (?P<v>[0-9](?:[ -]{{0,2}}[0-9]){{15,18}}) (?![0-9])""",
        ("卡", "card"),
        _not_a_card,
        lowered=True,
        value=True,
    ),
    # WeChat Pay (18 digits from 10–15) and Alipay (16–24 digits from 25–30) payment codes: after their word
    # any such run; alone, a WeChat code that is not shaped like an ID number (an ID with a wrong check digit
    # is an ID mistyped, not a code).
    _rule(
        "payment_code",
        rf"""(?:付款码|收款码|支付码|条形码|条码|微信支付|支付宝|pay(?:ment)?[ \t]code|wechat[ \t]?pay|alipay)
            {_LABEL} {_JOIN} (?P<v>[0-9](?:[ -]?[0-9]){{15,23}}) (?![0-9])""",
        ("码", "code", "支付", "pay"),
        lowered=True,
        value=True,
    ),
    _rule("payment_code", r"1(?<![0-9]1) [0-5](?:[ -]?[0-9]){16} (?![0-9])", DIGITS, _whole(_not_id_shaped)),
    _rule("payment_code", r"(?:2(?<![0-9]2)[5-9]|3(?<![0-9]3)0) (?:[ -]?[0-9]){14,22} (?![0-9])", DIGITS),
    # A passport (E/G/D/S/P + 8 digits, EA + 7, Hong Kong's H/K + 8, others' 9 digits) or an HK/Macau/Taiwan
    # permit (C, H, M, T + 8) after its word.
    _rule(
        "passport",
        rf"""(?:护照|passport|通行证|回乡证|台胞证|permit) {_LABEL} {_JOIN}
            (?P<v>[a-z]{{0,2}}[0-9]{{6,9}}) (?![0-9a-z])""",
        ("护照", "passport", "通行证", "回乡证", "台胞证", "permit"),
        lowered=True,
        value=True,
    ),
    # A Hong Kong identity card number, its check digit in brackets: A123456(3) (read from its first digit, which
    # a letter precedes: the engine skips every other place at once).
    _rule(
        "id_number",
        r"[0-9](?<=[a-z][0-9]) [0-9]{5} [ ]?[(（][0-9a][)）]",
        ("(", "（"),
        lowered=True,
        pick=_hkid,
    ),
)
