"""Secrets said in words: the value a secret word introduces, and a user name's password beside it.

People do not only write `password=X`. They say "my password is X", "the
password for github is X", "the MCP token is X", "token 是 X", "我的邮箱密码改成了
X", "路由器的管理密码 X 记一下", "user admin pass X", "login with admin / X",
"Use the password X to log in", "X is my wifi password". These rules find the
value such a sentence gives, in English and Chinese, and redact the value alone
("my password is [redacted:secret]").

Each rule's pattern finds where a value may be; its `pick` decides, from the
sentence around it, whether it is one:

- after an explicit link (is / was / for … is / : / = / 是 / 为 / 改成 / 设成 …)
  any token is a value, unless it is an ordinary word of a sentence going on
  ("the password is wrong", "token 是什么意思") or a quantity ("8 characters");
- where nothing links them ("password Hx7p2", "secret Sc4ret9x", "user admin
  pass X"), only a token shaped like a secret is: letters with digits, symbols
  among letters or digits, or a run of four digits or more; after a Chinese
  word, any token of Latin letters, digits and symbols ("密码 admin8"); after an
  English one, any token followed by what it is for ("… X to log in");
- a word that is often ordinary ("secret", "key", "code", "pin") needs a value
  shaped like a secret even after a link ("the secret to success is patience"
  keeps its words), unless a word before it makes it a credential ("api key",
  "client secret", "pin code"); so does a value linked through a phrase that
  is not a qualifier ("the password policy is strict"), and one written
  against its word ("tokenisQz8…", a name without spaces);
- a value in Chinese characters is taken only after 口令 or 暗号 (a pass
  phrase), or in quotes: a password is Latin letters and digits, and "密码学是一门
  学科", "密码输入页面" keep their words.

Matching stays linear in the length of the text. The word patterns start with
a literal (the engine skips to the characters a secret word starts with) and
check what precedes after that first character; everything after the word is
bounded or possessive, and the value is read in a look-ahead, so a value that
is itself a secret word is read again as a word (at most `MAX_VALUE`
characters per word). The other patterns start where their run starts (a
look-behind refuses every other position at once). `pick` reads at most a few
dozen characters around a match.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from store.core.redaction.rules import Part, Rule

MAX_VALUE = 128
MAX_QUOTED = 64
MAX_PHRASE = 32  # a pass phrase in Chinese characters

# -- the words -----------------------------------------------------------------------------------------------

# The words that name a secret, each starting with a literal; a look-behind after the first character asks for
# a word boundary where a word is also part of ordinary ones ("compass", "monkey", "barcode", "spin"). The
# password family needs none: it is found inside a longer run of letters ("wifipassword", a name without spaces).
_EN_WORDS = (
    r"pass(?:words?|wd|phrase|code)|pswd|pwd|p(?<![a-z]p)w(?![a-z0-9])|p(?<![a-z]p)ass(?![a-z0-9])|tokens?|apikey"
    r"|c(?<![a-z]c)red(?:entials?|s)(?![a-z0-9])"
)
# Words that are ordinary as often as not (in a pattern of their own: a number of fewer than six digits after
# them is no value of theirs, and is turned away before `pick` is asked; the code rule knows "code 1234").
_EN_WEAK_WORDS = (
    r"s(?<![a-z]s)ecrets?(?![a-z0-9])|k(?<![a-z]k)eys?(?![a-z0-9])|c(?<![a-z]c)ode(?![a-z0-9])"
    r"|p(?<![a-z]p)in(?![a-z0-9])|c(?<![a-z]c)omb(?:o|ination)(?![a-z0-9])"
)
_ZH_WORDS = "pin码|密码|密钥|秘钥|私钥|令牌|授权码|提取码|激活码|安全码"
_PHRASE_WORDS = "口令|暗号"
_STRONG = frozenset({"password", "passwords", "passwd", "passphrase", "passcode", "pswd", "pwd", "pw", "apikey"})
_STRONG_PREFIX = ("cred",)
_WEAK = frozenset(
    {"secret", "secrets", "key", "keys", "code", "pin", "combo", "combination"}
)  # ordinary as often as not
_PHRASE = frozenset({"口令", "暗号"})  # a pass phrase, often in Chinese characters ("暗号是天王盖地虎")
# A word before `key`, `token`, `secret`, `code` or `pass` that makes it a credential ("api key", "client secret").
_MODIFIER = re.compile(
    r"(?:api|access|secret|private|master|encryption|license|licence|product|wifi|wi-fi|network|recovery|backup|"
    r"ssh|gpg|app|client|auth|refresh|bearer|bot|session|personal[ _]access|pin|admin|root|login|account|shared|"
    r"signing|webhook|jwt|hmac|door|gate|alarm|safe|lock|wifi|router)[ _-]?$"
)
# The words a long text must hold for these rules to run (the lower-cased text is searched for each).
NEEDS = (
    "pass",
    "pwd",
    "pw",
    "key",
    "token",
    "secret",
    "cred",
    "code",
    "pin",
    "combo",
    *_ZH_WORDS.split("|"),
    "口令",
    "暗号",
)

# -- what joins a word to its value --------------------------------------------------------------------------

# Words between a secret word and its link: a short phrase ("for github", "of the router", "I use", ", by the
# way,") or, in Chinese, a pronoun, an adverb or a time ("密码我上周改成了").
# A word of the phrase is not itself a secret word: "my secret key is X" is read from "key" (a credential).
_GAP_WORD = (
    r"[ \t]{1,3}+(?!(?:keys?|tokens?|codes?|pass(?:word)?s?|pwd|secrets?)(?![a-z]))"
    r"[\"'“‘]?[a-z0-9_@-]{1,24}+(?:[.'’][a-z0-9_@-]{1,24}+){0,2}[\"'”’]?"
)
_ZH_GAP = (
    "我们|你们|他们|我|你|他|她|已经|已|刚刚|刚|又|也|都|就|还|现在|目前|暂时|默认|统一|一直|原来|之前|以前|"
    "后来|最近|今天|昨天|前天|上周|这周|本周|重新|被|给|帮我|其实|应该|好像|大概|可能|仍然|依然|的话|呢|啊|嘛|呀|吧"
)
# An aside ("the password, by the way, is X", "Password (case sensitive): X"), or in Chinese a short clause
# before a change ("密码忘了，重置成 X": `pick` takes no other link after one).
_ASIDE = r"[ \t]{0,2}+(?:,[^,\n]{1,40}+,|[(（][^()（）\n]{1,40}+[)）])"
_CLAUSE = r"[ \t]{0,2}+[\u4e00-\u9fff]{1,6}+[，,]"
_GAP = rf"(?P<gap>(?:{_GAP_WORD}|[ \t]{{0,2}}+(?=[\u4e00-\u9fff])(?:{_ZH_GAP})|{_ASIDE}|{_CLAUSE}){{0,4}}?)"
_BE = (
    r"is|was|are|were|'s|’s|will[ \t]be|would[ \t]be|should[ \t]be|must[ \t]be|has[ \t]been|have[ \t]been|"
    r"had[ \t]been|used[ \t]to[ \t]be|becomes|became|remains|stays|equals|reads"
)
_ADVERB = r"now|still|currently|actually|just|simply|always|again|also|probably|temporarily|basically|literally"
_CHANGED = r"changed|set|reset|updated|switched|being[ \t]changed"
_EN_LINK = (
    rf"(?:{_BE})(?:[ \t]{{1,3}}+(?:{_ADVERB}))?(?:[ \t]{{1,3}}+(?:{_CHANGED})[ \t]{{1,3}}+(?:to|as|into)|[ \t]{{1,3}}+"
    rf"going[ \t]to[ \t]be)?|(?:{_CHANGED})[ \t]{{1,3}}+(?:to|as|into)"
)
_ZH_LINK = (
    "(?:是|为|叫做|叫|改成|改为|改了|换成|换为|换了|变成|变为|变了|设成|设为|设置为|设置成|设置了|设了|设定为|设定成|定为|"
    "修改为|修改成|修改了|更改为|更改成|更新为|更新成|重置为|重置成|重置了|重设为|重设成|用的是|写的是|填的是|输的是)了?"
)
# "the wifi password? It's X": a question answered.
_ANSWER = r"[?？][ \t]{0,3}+(?:it's|it’s|it[ \t]is|its|that's|that’s|that[ \t]is)"
_SYMBOL_LINK = rf"[:=：]|=>|->|→|(?<=[ \t])[-–—]{{1,2}}(?=[ \t])|{_ANSWER}"
# What a link can start with: one test turns away most places before the alternatives are tried.
_LINK_START = "[iwarhbsecu'’:=：>→\\-–—?？是为叫改换变设定修更重用写填输]"
_LINK = rf"(?={_LINK_START})(?P<link>{_EN_LINK}|{_ZH_LINK}|{_SYMBOL_LINK})(?:[ \t]{{0,3}}+[:：])?"
_OPEN = "\"'“‘「『`(（[【<《"
_CLOSE = {'"': '"', "'": "'", "“": "”", "‘": "’", "「": "」", "『": "』", "`": "`", "(": ")", "（": "）", "[": "]"}
_CLOSE.update({"【": "】", "<": ">", "《": "》"})
_QUOTE = f"[{re.escape(_OPEN)}]"
_BARE_QUOTE = "[\"'“‘「『`]"
_TRAILING = ".,;:!?)]}>'\"’”»"  # what ends a sentence after a value
_IS = r"(?:[:=：]|is(?![a-z])|是|为)"
_SECRETISH = r"0-9!@#$%^&*+=~?|\\<>{}()\[\]"  # a digit or a symbol: what makes a token look like a secret
_PURPOSE_WORDS = r"to|for|when|登录|登陆|解锁|连接|进入"


# Ordinary words a sentence goes on with after "the password is …", "the token for … is …", "login with … / …":
# function words, what people say of a password, and the nouns a password word makes compounds with.
_ORDINARY_WORDS = """
a an the this that these those my your his her its our their it he she they we you i me him them us mine yours
hers ours theirs one ones some any no none all every each both either neither another other same different such
what which who whom whose where when why how whatever whichever something anything nothing everything someone
anyone nobody not never also still just now already only even very too so quite really rather pretty more most
less least much many few always usually often sometimes probably maybe perhaps definitely actually basically
literally simply kinda sorta almost nearly again twice once first second last next in on at to for of with by
from about into onto over under between through during before after since until as like than and or but if
because while though although then there here yet nor via per be being been am is are was were do does did done
have has had will would shall should can could may might must going gonna supposed meant used using use
required needed needs need missing wrong right correct incorrect invalid valid expired expiring expires expire
changed changing change changes updated update reset set saved stored written hidden shown sent displayed
encrypted hashed protected sensitive case-sensitive long longer short shorter weak weaker strong stronger secure
insecure safe unsafe easy easier hard harder simple complex complicated difficult obvious unique random
generated new old empty blank null unknown unchanged compromised leaked known public private personal important
useful good bad great fine ok okay true false available unavailable enabled disabled active inactive working
broken ready optional mandatory forgotten lost below above attached included inside outside printed stuck
locked unlocked revoked rotated accepted rejected denied allowed enough similar identical shared reused strict
lax policy policies manager managers field fields box prompt prompts hint hints form dialog screen page pages
generator vault app apps option options setting settings button link input inputs requirement requirements rule
rules strength length protection hash hashes file files list recovery expiry expiration login logins entry check
complexity history limit limits count usage type types format formats string strings value values word words
thing stuff yes yeah nope nah please thanks thank sorry hello hi hey wait somewhere anywhere everywhere elsewhere
tbd todo tba n/a na unset default defaults google facebook apple github microsoft wechat email phone sms text
texts message messages password passwords passcode pwd pin code token tokens username user users account
closed open opened free taken full out authentication authorization verification validation encryption decryption
rotation renewal refresh generation storage sharing hashing management confirmation retrieval access auth
again twice below above first later
"""
ORDINARY = frozenset(_ORDINARY_WORDS.split())


def _alternation(words: frozenset[str]) -> str:
    """`words` as one alternation grouped by first letter (the engine tries one group, not every word)."""
    groups: dict[str, list[str]] = {}
    for word in sorted(words, key=len, reverse=True):
        groups.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(f"{re.escape(first)}(?:{'|'.join(rests)})" for first, rests in sorted(groups.items()))


# Turns away an ordinary word where a value would start, before `pick` is asked (it asks again, exactly).
_NOT_ORDINARY = rf"(?!(?:{_alternation(ORDINARY)})s?[{re.escape(_TRAILING)}]*+(?:[\s\u3000-\u303f\u4e00-\u9fff]|\Z))"


def _value(suffix: str, *, bare: bool = False, chinese: bool = False, phrase: bool = False, weak: bool = False) -> str:
    """The value after a word, read in a look-ahead (groups `quote{suffix}`, `v{suffix}`). A value in Chinese
    characters is quoted, or follows a pass-phrase word (`phrase`). `bare`: nothing links it to its word, so
    the regular expression already asks for a token with a digit or a symbol in it or one followed by a purpose
    (`pick` decides), or, after a Chinese word, one starting with a Latin character."""
    # Unquoted, a value is three Latin characters or more (`pick` takes none shorter), or a pass phrase.
    latin = "(?=[^\\s\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff]{3})"
    least = f"{latin}|(?=[\u3400-\u4dbf\u4e00-\u9fff])" if phrase else latin
    quote = _BARE_QUOTE if bare else _QUOTE  # a bracket after a word with no link is an aside, not a quote
    head = rf"[ \t]{{0,3}}+(?P<quote{suffix}>{quote})?[ \t]{{0,2}}+(?(quote{suffix})|(?:{least}))"
    longest = MAX_PHRASE if phrase else MAX_VALUE
    short_number = r"(?![0-9]{1,5}+(?:[\s.,;:!?)\]]|\Z))" if weak else ""
    token = rf"{_NOT_ORDINARY}{short_number}(?P<v{suffix}>[^\s]{{1,{longest}}}+)"
    if not bare:
        return rf"(?={head}{token})"
    if chinese:
        return rf"(?={head}(?=[!-~]){token})"
    shaped = (
        rf"(?:(?<={_BARE_QUOTE})|(?=[^\s{_SECRETISH}]{{0,{MAX_VALUE - 1}}}+[{_SECRETISH}]|[^\s]{{1,64}}+[ \t]{{1,3}}+"
        rf"(?:{_PURPOSE_WORDS})))"
    )
    return rf"(?={head}{shaped}{token})"


def _words_pattern(words: str, *, chinese: bool = False, phrase: bool = False, weak: bool = False) -> str:
    """A secret word, then its value: linked (`L`), after "to" (`T`), or bare (`B`); the first that reads."""
    return rf"""(?P<word>{words})
        (?: {_GAP} [ \t]{{0,3}}+ {_LINK} {_value("", phrase=phrase, weak=weak)}
          | [ \t]{{1,3}}+to[ \t]{{1,3}}+ {_value("T", weak=weak)}
          | {_value("B", bare=True, chinese=chinese, weak=weak)} )"""


# -- what a value is not -------------------------------------------------------------------------------------

# Chinese that says something about a password rather than giving it ("口令是什么", "暗号不对").
_ZH_ORDINARY = re.compile(
    "什么|多少|啥|哪|怎么|怎样|如何|不|没|错|对|正确|一样|相同|必须|需要|要|多|几|空|无|指|用|否|非常|很|太|比较|一|个|"
    "的|了|吗|呢|吧|啊|这|那|它|他|她|我|你|在|由|从|和|与|跟|同|可以|可能|应该|会|能|已|还|也|都|就|才|只|纯|全|"
    "数字|字母|区分|加密|随机|自动|默认|系统|用户|六位|八位|四位|下面|上面|以下|如下"
)
# After a value, a unit makes it a quantity ("the password is 8 characters long", "密码是 6 位").
_QUANTITY = re.compile(
    r"[ \t]{0,2}+(?:characters?|chars?|digits?|letters?|symbols?|words?|bytes?|bits?|long|minutes?|hours?|days?|"
    r"weeks?|months?|years?|times?|or[ \t]more|位|个|天|次|小时|分钟|字符|字节)"
)
# After a value that nothing links to its word, what it is for ("Use the password X to log in").
_PURPOSE = re.compile(
    r"[ \t]{0,3}+(?:to[ \t]{1,3}+(?:log|sign)[ _-]?(?:in|on)|to[ \t]{1,3}+(?:login|unlock|access|connect|authenticate|"
    r"get[ \t]in|enter)|for[ \t]{1,3}+(?:login|logging[ \t]in|signing[ \t]in|access)|when[ \t]{1,3}+(?:asked|prompted|"
    r"logging)|登录|登陆|解锁|连接|进入)"
)
# Before "… password to X": a change ("I changed my wifi password to X").
_CHANGE_BEFORE = re.compile(
    r"(?:chang|set|reset|updat|switch|modif)[a-z]*[ \t]{1,3}+(?:[a-z0-9'’-]{1,20}[ \t]{1,3}+){0,3}$"
)
_CLIENTS = ("mysql", "mariadb", "-u")
_NUMBER_WORDS = frozenset({"number", "no", "no.", "code", "codes"})
_GROUPED_DIGITS = re.compile(r"[0-9]+(?:[-. ][0-9]+)+")
_CLAUSE_IN_GAP = re.compile("[\u4e00-\u9fff][，,]")
_CHANGE_LINK = "改换变设修更重"  # the first characters of the Chinese links that say a change
# Before a word whose value nothing links to it: using it ("log in as admin with password X", "enter password X").
_USING_BEFORE = re.compile(
    r"(?:with|using|use|enter|type|try|input)[ \t]{1,3}(?:(?:the|my|this|that|a|an)[ \t]{1,3})?$"
)
_QUALIFIER = re.compile(r"(?:for|to|of|on|at|in|into|with|from|i|we|you|he|she|they|that|which|now|here|currently)$")
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f]")
_CJK_RUN = re.compile(f"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{{1,{MAX_PHRASE}}}")
_DIGIT = re.compile("[0-9]")
_LATIN = re.compile("[A-Za-z]")
_SYMBOL = re.compile(r"[!@#$%^&*+=~?|\\/<>{}\[\]();:]")


def _shaped(value: str, digits: int, *, symbols: bool = True) -> bool:
    """Whether `value` looks like a secret on its own: Latin letters with digits, symbols among letters or
    digits (unless `symbols` is false), or a run of at least `digits` digits (grouped or not)."""
    if len(value) < 4:
        return False
    if value.isdigit():
        return len(value) >= digits
    has_digit = _DIGIT.search(value) is not None
    has_letter = _LATIN.search(value) is not None
    if has_digit and has_letter:
        return True
    if has_digit and _GROUPED_DIGITS.fullmatch(value):  # "12-34-56", "4821 7730"
        return len(_DIGIT.findall(value)) >= digits
    return symbols and (has_digit or has_letter) and _SYMBOL.search(value, 0, len(value) - 1) is not None


def _ordinary(value: str) -> bool:
    return value in ORDINARY or value.rstrip("s") in ORDINARY


def _any_token(value: str) -> bool:
    """Whether a token after an explicit link is a value: not an ordinary word, not a digit or two."""
    if value.isdigit():
        return len(value) >= 4
    return len(value) >= 3 and not _ordinary(value) and any(c.isalnum() for c in value)


@dataclass(frozen=True)
class _Found:
    start: int
    end: int
    quoted: bool
    chinese: bool


def _found(text: str, match: re.Match[str], suffix: str, *, chinese_ok: bool) -> _Found | None:
    """The value a match points at (groups `quote{suffix}`, `v{suffix}`): inside its quotes when it is quoted,
    else its token (Latin characters up to a Chinese one, or, where `chinese_ok`, Chinese characters up to
    anything else), without the punctuation that ends a sentence."""
    start, end = match.span("v" + suffix)
    quote = match.group("quote" + suffix)
    if quote is not None:
        close = text.find(_CLOSE[quote], start, start + MAX_QUOTED)
        if close > start and text[start:close].strip():
            return _Found(start, close, True, bool(_CJK.match(text, start)))
    if _CJK.match(text, start):
        run = _CJK_RUN.match(text, start) if chinese_ok else None
        return _Found(start, run.end(), False, True) if run else None
    cut = _CJK.search(text, start, end)
    stop = cut.start() if cut else end
    while stop > start and text[stop - 1] in _TRAILING:
        stop -= 1
    return _Found(start, stop, False, False) if stop > start else None


def _decided(text: str, found: _Found | None, *, shaped_only: bool, digits: int = 4) -> Part:
    """The value's span when it is one: a quoted token or Chinese pass phrase that is not an ordinary word, a
    shaped token (`shaped_only`), or any token that is not an ordinary word; never a quantity."""
    if found is None or (not found.quoted and _QUANTITY.match(text, found.end)):
        return None
    value = text[found.start : found.end]
    if found.chinese:
        ok = not _ZH_ORDINARY.match(value)
    elif found.quoted:
        ok = not _ordinary(value)
    elif shaped_only:
        ok = _shaped(value, digits)
    else:
        ok = _any_token(value)
    return (found.start, found.end) if ok else None


def _tight(text: str, at: int) -> bool:
    """Whether a Latin letter or a digit touches position `at` (a word written against the next one)."""
    return at < len(text) and text[at].isascii() and text[at].isalnum()


def _strength(text: str, match: re.Match[str]) -> str:
    """`strong` (a password, or a credential such as "api key"), `token` (a token or pass: often ordinary),
    `weak` (secret, key, code, pin: ordinary as often as not), `zh` or `phrase` (口令, 暗号)."""
    word = match.group("word")
    if word in _PHRASE:
        return "phrase"
    if not word.isascii() or word.endswith("码"):
        return "zh"
    if word in _STRONG or word.startswith(_STRONG_PREFIX):
        return "strong"
    if _MODIFIER.search(text, max(0, match.start() - 24), match.start()):
        return "strong"
    return "weak" if word in _WEAK else "token"


def _said_value(match: re.Match[str]) -> Part:
    """The value a secret word introduces (see the module docstring for what counts)."""
    text = match.string
    strength = _strength(text, match)
    word_end = match.end("word")
    if word_end < len(text) and text[word_end] == "_":
        return None  # part of an identifier: `tokens_total`, `password_hash`
    # A Latin value written against a Chinese word is how Chinese is written ("密码letmein"); against an English
    # word, it is a name without spaces.
    tight = strength not in ("zh", "phrase") and _tight(text, word_end)
    if match.group("link") is not None:
        link = match.group("link")
        gap = match.group("gap").split()
        if gap and gap[0] in _NUMBER_WORDS:  # "pin number", "key code": the word's own number
            strength, gap = "strong", gap[1:]
        tight = tight or (link[-1].isascii() and link[-1].isalpha() and _tight(text, match.end("link")))
        if _CLAUSE_IN_GAP.search(match.group("gap")) and link[0] not in _CHANGE_LINK:
            return None  # "密码忘了，重置成 X" is a change; "密码不对，是 X 吗" is no value
        # "for github", "I use", "now", ", by the way,", "我上周": a qualifier, not a noun the word is part of.
        qualified = not gap or bool(_QUALIFIER.match(gap[0]) or _CJK.match(gap[0]) or gap[0][0] in ",(（")
        phrase_gap = bool(gap) and not _CJK.match(gap[0])  # "a token of appreciation is …": ordinary
        shaped_only = (
            strength == "weak" or tight or link in ("'s", "’s") or not qualified or (strength == "token" and phrase_gap)
        )
        found = _found(text, match, "", chinese_ok=strength == "phrase")
        return _decided(text, found, shaped_only=shaped_only, digits=6 if strength == "weak" else 4)
    if match.group("vT") is not None:
        found = _found(text, match, "T", chinese_ok=False)
        changed = bool(_CHANGE_BEFORE.search(text, max(0, match.start() - 60), match.start()))
        return _decided(text, found, shaped_only=not changed)
    found = _found(text, match, "B", chinese_ok=False)
    if found is None:
        return None
    purpose = not tight and bool(_PURPOSE.match(text, found.end))
    using = not tight and bool(_USING_BEFORE.search(text, max(0, match.start() - 20), match.start()))
    shaped_only = tight or not (strength in ("zh", "phrase") or purpose or using)
    return _decided(text, found, shaped_only=shaped_only, digits=6 if strength in ("weak", "token") else 4)


# Read backwards from a link: the token before it (the text reversed, so that the match is anchored).
_BEFORE_LINK = re.compile(r"([ \t]{0,3}+)([!-~]{4,64}+)(?![!-~])")


def _before(match: re.Match[str]) -> Part:
    """A value before its word ("X is my password", read from its link backwards): what comes before a word is
    seldom a value, so it must hold letters and digits, or be a run of digits ("team/support is key")."""
    text, link = match.string, match.start()
    back = _BEFORE_LINK.match(text[max(0, link - 70) : link][::-1])
    if back is None or (match.group("en") is not None and not back.group(1)):
        return None
    end = link - len(back.group(1))
    start = end - len(back.group(2))
    value = text[start:end].rstrip(_TRAILING)
    end = start + len(value)
    if _QUANTITY.match(text, end):
        return None
    # "enter X as the password" names its value; before "is", only letters with digits are taken.
    said_as = text.startswith("as", link)
    return (start, end) if (_any_token(value) if said_as else _shaped(value, 4, symbols=False)) else None


def _pair(match: re.Match[str]) -> Part:
    """A user name's password: any token that is not an ordinary word."""
    return _decided(match.string, _found(match.string, match, "", chinese_ok=False), shaped_only=False)


def _pair_for(match: re.Match[str]) -> Part:
    """`user / password` followed by what it is for ("用 admin/Lg8in 登录", "use admin / X to log in")."""
    found = _found(match.string, match, "", chinese_ok=False)
    if found is None or not _PURPOSE.match(match.string, found.end):
        return None
    return _decided(match.string, found, shaped_only=False)


def _known_user(match: re.Match[str]) -> Part:
    """A well-known user name's password: spaced from it by a slash ("admin / X"), any token that is not an
    ordinary word; written against it ("admin/X", "root:X", as in a path or a label), one shaped like a secret."""
    found = _found(match.string, match, "", chinese_ok=False)
    return _decided(match.string, found, shaped_only=match.group("spaced") is None)


def _client(match: re.Match[str]) -> Part:
    """`-pX` on a database client's command line (`mysql -u root -pX`): a client's name or `-u` before it on
    its line."""
    text, start = match.string, match.start()
    line = max(text.rfind("\n", max(0, start - 80), start) + 1, start - 80, 0)
    if not any(text.rfind(word, line, start) >= 0 for word in _CLIENTS):
        return None
    return _pair(match)


def _ascii_before(link: str) -> str:
    """`link`, where a Latin character (a value) comes before it, with up to two spaces between."""
    first, rest = link[0], link[1:]
    blank = r"[ \t]"
    behind = "|".join(f"(?<=[!-~]{blank * spaces}{first})" for spaces in range(3))
    return f"{first}(?:{behind}){rest}"


def _said(pattern: str, pick: Callable[[re.Match[str]], Part], needs: tuple[str, ...] = NEEDS) -> Rule:
    return Rule("secret", re.compile(pattern, re.VERBOSE), needs, lowered=True, pick=pick)


_USER = r"[a-z0-9_.@+-]{1,64}+"
_PASS_WORD = r"(?:(?:pass(?:[ _-]?word)?|passwd|pwd|pw|passcode|pin)(?![a-z])|密码|口令)"
_NO_QUOTE = "(?P<quote>(?!))?"  # for `pick`: a value without quotes

SAID: tuple[Rule, ...] = (
    # "my password is X", "the password for github is X", "the MCP token is X", "password X", "secret X",
    # "Use the password X to log in", "I changed my wifi password to X"
    _said(_words_pattern(_EN_WORDS), _said_value),
    # "secret X", "the api key is X", "the client secret is X", "the safe combination is 12-34-56"
    _said(_words_pattern(_EN_WEAK_WORDS, weak=True), _said_value, ("secret", "key", "code", "pin", "comb")),
    # "我的邮箱密码改成了 X", "token 是 X" (above), "路由器的管理密码 X 记一下", "密码我上周改成了 X"
    _said(_words_pattern(_ZH_WORDS, chinese=True), _said_value),
    # "口令是 X", "暗号是天王盖地虎"
    _said(_words_pattern(_PHRASE_WORDS, chinese=True, phrase=True), _said_value, ("口令", "暗号")),
    # "X is my wifi password", "Hk3vPz7Q 是我的密码"
    _said(
        rf"""(?: (?P<en>i(?<=[!-~][ \t]i)s|w(?<=[!-~][ \t]w)as|a(?<=[!-~][ \t]a)s
                  |i(?<=[!-~][ \t][ \t]i)s|w(?<=[!-~][ \t][ \t]w)as)
                [ \t]{{1,3}}+
              | {_ascii_before("就是")} | {_ascii_before("是")} | {_ascii_before("为")} ) [ \t]{{0,3}}+
            (?:(?:my|the|our|your|his|her|their|a|我的|你的|我们的|他的|她的)[ \t]{{0,3}}+)?
            (?:[a-z0-9-]{{1,20}}[ \t]{{1,3}}+){{0,2}}
            (?:api[ _-]?key|access[ _-]?key|secret[ _-]?key|private[ _-]?key|client[ _-]?secret
              |pass(?:words?|wd|phrase|code)|pwd|credentials?|{_ZH_WORDS}|{_PHRASE_WORDS})""",
        _before,
    ),
    # "user admin pass X", "username: admin, password: X", "账号 admin 密码 X"
    _said(
        rf"""(?:u(?<![a-z]u)ser(?:[ _-]?name)?|l(?<![a-z]l)ogin|a(?<![a-z]a)cc(?:oun)?t
              |用户名|用户|账号|帐号|账户|登录名)
            [ \t]{{0,3}}+{_IS}?[ \t]{{0,3}}+ {_USER}
            [ \t]{{0,3}}+(?:[,;/|，；、][ \t]{{0,3}}+)?(?:(?:and|&|和|与)[ \t]{{0,3}}+)?(?:(?:the|my|its)[ \t]{{1,3}}+)?
            {_PASS_WORD} [ \t]{{0,3}}+{_IS}? {_value("")}""",
        _pair,
        ("user", "login", "account", "acct", "用户", "账号", "帐号", "账户", "登录名"),
    ),
    # "login with admin / X", "sign in as admin:X", "credentials admin/X", "账号密码是 admin / X"
    _said(
        rf"""(?:l(?<![a-z]l)og[ _-]?(?:in|on)|s(?<![a-z]s)ign[ _-]?in|c(?<![a-z]c)red(?:entials?|s)|a(?<![a-z]a)uth
              |登录|登陆|账号密码|帐号密码|用户名密码|用户名和密码|账号和密码) (?![a-z])
            (?:[ \t]{{1,3}}+[a-z0-9_.-]{{1,24}}+){{0,4}}?
            (?:[ \t]{{0,3}}+(?:with|as|using|via|details|info|is|are|:|：|=|是|为|用|使用|信息)){{0,2}}
            [ \t]{{0,3}}+ {_USER} [ \t]{{0,3}}+[/:|] {_value("")}""",
        _pair,
        ("log", "sign", "cred", "auth", "登录", "登陆", "账号", "帐号", "用户名"),
    ),
    # "log in as admin with password X", "enter password X"
    _said(
        rf"""(?:w(?<![a-z]w)ith|u(?<![a-z]u)sing|u(?<![a-z]u)se|e(?<![a-z]e)nter|t(?<![a-z]t)ype|t(?<![a-z]t)ry
              |i(?<![a-z]i)nput) [ \t]{{1,3}}+ (?:(?:the|my|this|that|a|an)[ \t]{{1,3}}+)?
            (?:pass(?:words?|wd|phrase|code)|pwd|pw|pin|密码) {_value("")}""",
        _pair,
        ("with", "using", "use", "enter", "type", "try", "input"),
    ),
    # "the router admin is admin / X", "root:X" (a well-known user name and its password, nothing else said)
    _said(
        rf"""(?:a(?<![a-z0-9_./-]a)dmin(?:istrator)?|r(?<![a-z0-9_./-]r)oot|g(?<![a-z0-9_./-]g)uest
              |p(?<![a-z0-9_./-]p)ostgres|u(?<![a-z0-9_./-]u)buntu|s(?<![a-z0-9_./-]s)a)
            (?P<spaced>[ \t]{{1,3}}[/|][ \t]{{0,3}}|[ \t]{{0,3}}[/|][ \t]{{1,3}})?+(?(spaced)|[/:|])
            {_NO_QUOTE} {_NOT_ORDINARY} (?=(?P<v>[^\s/:|]{{3,{MAX_VALUE}}}+)(?![/:|]))""",
        _known_user,
        ("admin", "root", "guest", "postgres", "ubuntu", "sa"),
    ),
    # "use admin / X to log in", "用 admin/X 登录"
    _said(
        rf"""/(?:(?<=[a-z0-9_.@+-]/)|(?<=[a-z0-9_.@+-][ \t]/)|(?<=[a-z0-9_.@+-][ \t][ \t]/)) [ \t]{{0,3}}+
            {_NO_QUOTE} {_NOT_ORDINARY} (?=(?P<v>[^\s/]{{1,{MAX_VALUE}}}+)
              (?:[ \t]{{0,3}}+(?:{_PURPOSE_WORDS})|(?<=登录|登陆|解锁|连接|进入)))""",
        _pair_for,
        ("log", "sign", "登录", "登陆", "解锁", "unlock", "access", "connect"),
    ),
    # HTTP basic credentials said as such: "curl -u admin:X", "basic auth admin:X", "http auth: admin:X"
    _said(
        rf"""(?:-(?<![a-z0-9-]-)u|--user|b(?<![a-z]b)asic[ _-]?auth(?:entication)?|h(?<![a-z]h)ttp[ _-]?auth)
            (?:[ \t]{{1,3}}+(?:with|is|are|是|为|用))?[ \t=:：]{{1,3}} (?P<quote>["'])? {_USER}
            :(?=(?P<v>[^\s@'"]{{3,{MAX_VALUE}}}+))""",
        _pair,
        ("-u", "--user", "auth"),
    ),
    # "admin:X@10.0.0.5", "root:X@db.example.cn" (a URL's credentials without its scheme)
    _said(
        rf""":(?<=[a-z0-9_.+-]:) {_NO_QUOTE} (?P<v>[^\s:/@"'<>]{{3,{MAX_VALUE}}}+)
            @(?=[a-z0-9-]{{1,63}}\.[a-z0-9.-]|localhost|\[)""",
        _pair,
        ("@",),
    ),
    # "mysql -u root -pX"
    _said(rf"-(?<![a-z0-9-]-)p (?P<quote>['\"])? (?=(?P<v>[^\s-][^\s]{{2,{MAX_VALUE - 1}}}+))", _client, ("-p",)),
)
