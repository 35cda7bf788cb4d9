"""Secrets in every format the filter must know (DESIGN.md, The store), for the unit tests and the corpus test.

Each format makes a secret in two families: 0 for what Jiyi files (it must be
stored nowhere) and 1 for what a phone agent's episode holds (kept verbatim
there, nowhere else). Needles are the ASCII cores to look for in the raw
bytes of a home; they are long and unusual enough not to turn up by chance.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def id_check_digit(first17: str) -> str:
    return "10X98765432"[sum(int(d) * w for d, w in zip(first17, _ID_WEIGHTS, strict=True)) % 11]


def luhn_complete(partial: str) -> str:
    """`partial` with the check digit that makes it Luhn-valid."""
    for last in "0123456789":
        digits = partial + last
        total = sum(
            (int(d) * 2 - 9 if int(d) > 4 else int(d) * 2) if i % 2 else int(d) for i, d in enumerate(reversed(digits))
        )
        if total % 10 == 0:
            return digits
    raise AssertionError("unreachable")


def key_body(family: int) -> str:
    """Five lines of base64 key material (64 characters each, the last shorter), different per family."""
    raw = b"".join(hashlib.sha256(f"jiyi-key-{family}-{i}".encode()).digest() for i in range(9))
    text = base64.b64encode(raw).decode()
    return "\n".join(text[i : i + 64] for i in range(0, len(text), 64))


@dataclass(frozen=True)
class Secret:
    text: str  # as a person would write it
    needles: tuple[str, ...]  # what must not be found where it may not be stored
    alone: bool = True  # whether the needle is a secret without its words (a code is not: "OTP" makes it one)
    spoken: bool = False  # said in a sentence: a name holds it with its spaces (without them it says nothing)

    @property
    def compact(self) -> str:
        """The secret as one word (for names and ids): spaces left out, so it still reads as the same secret;
        a sentence keeps its spaces (a name may hold spaces; run together, its words are no sentence)."""
        return self.text if self.spoken else self.text.replace(" ", "")


@dataclass(frozen=True)
class Format:
    name: str
    make: Callable[[int], Secret]


def _mobile_spaced(f: int) -> Secret:
    middle = 5193 + f
    return Secret(f"137 {middle} 6628", (f"137 {middle} 6628", f"137{middle}6628"))


def _private_key(f: int) -> Secret:
    body = key_body(f)
    block = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"
    return Secret(block, tuple(line for line in body.splitlines() if len(line) >= 20))


def _id18(f: int) -> Secret:
    first = f"11010519870514{317 + f}"
    number = first + id_check_digit(first)
    return Secret(f"身份证号码 {number}", (number,))


def _card(f: int) -> Secret:
    number = luhn_complete(f"62220218{4730 + f}915")
    return Secret(number, (number,))


def _split_card(separator: str) -> Callable[[int], Secret]:
    """A Luhn card number in two halves of eight digits, `separator` between them."""

    def make(f: int) -> Secret:
        number = luhn_complete(f"62220218{4730 + f}915")
        return Secret(f"{number[:8]}{separator}{number[8:]}", (number[8:],), alone=False)  # a half is no card

    return make


def _card_not_luhn(f: int) -> Secret:
    number = luhn_complete(f"62220218{4750 + f}915")
    wrong = number[:-1] + str((int(number[-1]) + 1) % 10)
    return Secret(f"卡号 {wrong}", (wrong,), alone=False)


def _b64(template: str) -> Callable[[int], Secret]:
    """The base64 of a secret that its words make one (`password=…`); the encoding is the needle."""

    def make(f: int) -> Secret:
        encoded = base64.b64encode(template.format(f=f).encode()).decode().rstrip("=")
        return Secret(encoded, (encoded,))

    return make


def _basic(f: int) -> Secret:
    encoded = base64.b64encode(f"jiyi-user{f}:Hx7pQ2{f}wLk".encode()).decode()
    return Secret(f"Authorization: Basic {encoded}", (encoded.rstrip("="),), alone=False)


def _simple(template: str, needle: str, *, alone: bool = True, spoken: bool = False) -> Callable[[int], Secret]:
    """A secret whose text and needle differ per family by the digit `{f}`."""
    return lambda f: Secret(template.format(f=f), (needle.format(f=f),), alone, spoken)


def _said(template: str, needle: str) -> Callable[[int], Secret]:
    """A secret said in a sentence (`{v}` is the value, `needle` with the family digit `{f}`)."""
    return lambda f: Secret(template.format(v=needle.format(f=f)), (needle.format(f=f),), alone=False, spoken=True)


def _said_word(template: str, words: tuple[str, str]) -> Callable[[int], Secret]:
    """A secret said in a sentence whose value is letters only (one word per family): any token after a link."""
    return lambda f: Secret(template.format(v=words[f]), (words[f],), alone=False, spoken=True)


def hkid(letter_and_digits: str) -> str:
    """A Hong Kong identity card number with its check digit: `A123456` → `A123456(3)`."""
    values = [36] * (8 - len(letter_and_digits)) + [int(c, 36) for c in letter_and_digits]
    total = sum(v * w for v, w in zip(values, range(9, 1, -1), strict=True))
    return f"{letter_and_digits}({'0123456789A'[-total % 11]})"


_GHP = "R8kT2vQ9xL4mN7pW1zY6bC3dF5gH0jKsAeU"
_AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY{f}EXAMPLEKE"
_EARLIER: tuple[Format, ...] = (
    Format("mobile", _simple("1358246739{f}", "1358246739{f}")),
    Format("mobile_plus86", _simple("+86139726183{f}4", "139726183{f}4")),
    Format("mobile_spaced", _mobile_spaced),
    Format("otp", _simple("OTP 7319574{f}", "7319574{f}", alone=False)),
    Format("check_code", _simple("校验码8462039{f}", "8462039{f}", alone=False)),
    Format("verification_code", _simple("您的验证码为 5927461{f}", "5927461{f}", alone=False)),
    Format("aws_access_key", _simple("AKIAQX7R2M{f}TZ5WK9PBL", "AKIAQX7R2M{f}TZ5WK9PBL")),
    Format("aws_secret_key", _simple("aws_secret_access_key=" + _AWS_SECRET, _AWS_SECRET, alone=False)),
    Format("github_token", _simple("ghp_" + _GHP + "{f}", _GHP + "{f}")),
    Format(
        "github_pat", _simple("github_pat_11ABQ7Z{f}0a9Kc2Lm4Np6Qr8St0Uv2Wx4Yz6", "11ABQ7Z{f}0a9Kc2Lm4Np6Qr8St0Uv2")
    ),
    Format("openai_key", _simple("sk-proj{f}Ab12Cd34Ef56Gh78Ij90", "proj{f}Ab12Cd34Ef56Gh78")),
    Format("private_key", _private_key),
    Format("id_number_18", _id18),
    Format("id_number_15", _simple("身份证 110105870514{f}31", "110105870514{f}31")),
    Format("card_number", _card),
    Format("password", _simple("password=Xq7{f}vLm9Tz", "Xq7{f}vLm9Tz", alone=False)),
    Format("passwd", _simple("passwd: Pw{f}Rk3Yd8Qe", "Pw{f}Rk3Yd8Qe", alone=False)),
    Format("email", _simple("lin.wei{f}7@example-mail.cn", "lin.wei{f}7@example-mail")),
    # Issue 25: the formats that reached disk before.
    Format("basic_auth", _basic),
    Format(
        "slack_webhook",
        _simple(
            "https://hooks.slack.com/services/T0{f}A1B2C3D/B0{f}E4F5G6H/Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk{f}",
            "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk{f}",
        ),
    ),
    Format("stripe_live", _simple("sk_live_51Hq{f}LyjKxQ8mZ3vN7pR2tW9s", "51Hq{f}LyjKxQ8mZ3vN7pR2tW9s")),
    Format("stripe_restricted", _simple("rk_live_72Wd{f}QpLm4Rt8Zx2Vb6Nc3", "72Wd{f}QpLm4Rt8Zx2Vb6Nc3")),
    Format("db_url", _simple("postgres://jiyi:Pg{f}Secr3tZq@db.example.cn:5432/app", "Pg{f}Secr3tZq", alone=False)),
    Format("db_url_localhost", _simple("mysql://root:My{f}Sql9Kp2w@localhost/db", "My{f}Sql9Kp2w", alone=False)),
    Format("db_url_ip", _simple("redis://:Rd{f}Is7Wq3Zp@10.0.0.5:6379/0", "Rd{f}Is7Wq3Zp", alone=False)),
    Format(
        "azure_account_key",
        _simple(
            "DefaultEndpointsProtocol=https;AccountName=jiyi;AccountKey=Az{f}Kq8Wm3Xn5Rt7Yp2Lc4Vb6Nd9Hf1Gj0==",
            "Az{f}Kq8Wm3Xn5Rt7Yp2Lc4Vb6Nd9Hf1Gj0",
            alone=False,
        ),
    ),
    Format("gitlab_token", _simple("glpat-Gl{f}xR7kP2mQ9vT4wZ8sN3b", "Gl{f}xR7kP2mQ9vT4wZ8sN3b")),
    Format("huggingface_token", _simple("hf_Hf{f}aBcDeFgHiJkLmNoPqRsTuVwXyZ012", "Hf{f}aBcDeFgHiJkLmNoPqRsTuVwXyZ012")),
    Format("npm_token", _simple("npm_Np{f}m9aBcDeFgHiJkLmNoPqRsTuVwXyZ0123", "Np{f}m9aBcDeFgHiJkLmNoPqRsTuVwXyZ0123")),
    Format(
        "sendgrid_key",
        _simple("SG.Sg{f}AbCdEfGhIjKlMnOpQr.St{f}UvWxYz0123456789AbCdEfGhIjKlMnOpQrSt", "St{f}UvWxYz0123456789AbCd"),
    ),
    Format(
        "telegram_bot_token",
        _simple("bot token 5123456{f}89:AAH{f}qTcvCH1vGWJxfSeofSAs0K5PALDsawQ", "AAH{f}qTcvCH1vGWJxfSeofSAs0K5"),
    ),
    Format("card_ideographic_space", _split_card("\u3000")),
    Format("card_two_spaces", _split_card("  ")),
    Format("card_after_word_not_luhn", _card_not_luhn),
    Format("wechat_pay_code", _simple("微信付款码 13{f}456789012345678", "13{f}456789012345678")),
    Format("alipay_pay_code", _simple("支付宝付款码 28{f}12345678901234567", "28{f}12345678901234567")),
    Format("passport", _simple("护照号码 E8{f}305719", "E8{f}305719", alone=False)),
    Format("hk_macau_permit", _simple("港澳通行证 C7{f}418265", "C7{f}418265", alone=False)),
    Format("password_jiushi", _simple("密码就是Zq{f}8wXr5Tm", "Zq{f}8wXr5Tm", alone=False)),
    Format("password_space", _simple("密码 Hk{f}3vPz7Qw", "Hk{f}3vPz7Qw", alone=False)),
    Format("pay_password", _simple("支付密码 864{f}2913", "864{f}2913", alone=False)),
    Format("code_spaced", _simple("验证码是 7 3 9 1 5 2 8 {f}", "7 3 9 1 5 2 8 {f}", alone=False)),
    Format("dynamic_token", _simple("动态口令6{f}392741", "6{f}392741", alone=False)),
    Format("base64_password", _b64("password=Bx{f}9mQ4wZtKp")),
    Format("url_encoded_password", _simple("password%3DUr{f}l7Kq9Xm", "Ur{f}l7Kq9Xm", alone=False)),
    Format(
        "url_encoded_bearer",
        _simple("Authorization%3A%20Bearer%20Br{f}zX8kQ2mW7vT5", "Br{f}zX8kQ2mW7vT5", alone=False),
    ),
    Format("pass_colon", _simple("pass: Ps{f}w9Lq2Zr", "Ps{f}w9Lq2Zr", alone=False)),
    Format(
        "sk_zero_width",
        lambda f: Secret(f"sk-zwsp{f}Kx83\u200bMn47Pq92Rs65Tu{f}", (f"zwsp{f}Kx83", f"Mn47Pq92Rs65Tu{f}")),
    ),
    Format(
        "sk_wrapped",
        lambda f: Secret(f"sk-wrap{f}Lm29Np47Qr\nSt83Uv61Wx{f}5", (f"wrap{f}Lm29Np47Qr", f"St83Uv61Wx{f}5")),
    ),
    Format("homoglyph_bearer", _simple("\u0412\u0435arer Hg{f}7kP3mQ9xW2vL", "Hg{f}7kP3mQ9xW2vL", alone=False)),
)
# Issue 36: secrets said in plain words (the value after a link, bare, or in a user name's pair) and the formats
# that reached the disk in round 4.
SAID_FORMATS: tuple[Format, ...] = (
    Format("said_my_password", _said("my password is {v}", "Hy{f}7wQ3pLk")),
    Format("said_password_for", _said("the password for github is {v}", "Gh{f}8mT2xQv")),
    Format("said_wifi_password", _said("my wifi password is {v}", "Wf{f}3nE7tKr")),
    Format("said_root_password", _said("the root password is {v}", "Rt{f}9xK2vBn")),
    Format("said_mcp_token", _said("the MCP token is {v}", "mcpTk{f}77ZqW")),
    Format("said_secret", _said("secret {v}", "Sc{f}4rEt9xQ")),
    Format("said_user_pass", _said("user admin pass {v}", "Pa{f}55w0rdZ")),
    Format("said_login_pair", _said("login with admin / {v}", "Lg{f}8iN7xQw")),
    Format("said_use_password", _said("Use the password {v} to log in", "Up{f}3wD9kRz")),
    Format("said_changed_to", _said("I changed my email password to {v} yesterday", "Ch{f}6gD2wPm")),
    Format("said_before_word", _said("{v} is my wifi password", "Bf{f}4rW7qZk")),
    Format("said_plain_word", _said_word("the password for the router is {v}", ("quokkamarmalade", "wombatcinnamon"))),
    Format("zh_mailbox_changed", _said("我的邮箱密码改成了 {v}", "Ml{f}5pWd8Qz")),
    Format("zh_router_admin", _said("路由器的管理密码 {v} 记一下", "Ra{f}5dMn9Qx")),
    Format("zh_token_is", _said("token 是 {v}", "Tk{f}8zZ9qWv")),
    Format("zh_account_pair", _said("账号 admin 密码 {v}", "Zh{f}7aCc2Pw")),
    Format("zh_plain_word", _said_word("新的wifi密码是 {v}，记一下", ("pelicanbiscuit", "otterlavender"))),
    Format("hk_passport", _simple("HK passport no. K{f}2345678", "K{f}2345678", alone=False)),
    Format("passport_number", _simple("passport number: E{f}3057192", "E{f}3057192", alone=False)),
    Format(
        "telegram_bot_url",
        _simple(
            "https://api.telegram.org/bot7123456{f}89:AAF{f}qTcvCH1vGWJxfSeofSAs0K5PALDsawQx/getMe",
            "AAF{f}qTcvCH1vGWJxfSeofSAs0K5",
        ),
    ),
    Format("wechat_pay_dashed", _simple("wechat pay 13{f}4-5678-9012-3456-78", "13{f}4-5678-9012-3456-78")),
    Format(
        "basic_auth_curl", _simple("curl -u admin:Bc{f}9xK2pLq https://x.cn", "Bc{f}9xK2pLq", alone=False, spoken=True)
    ),
    Format("code_in_parentheses", _simple("验证码（4829{f}137）", "4829{f}137", alone=False)),
    Format("hkid", lambda f: Secret(f"HKID {hkid(f'A12345{f}')}", (hkid(f"A12345{f}"),), spoken=True)),
    Format("mysql_password", _simple("mysql -u root -pMy{f}Sq1Pw", "My{f}Sq1Pw", alone=False, spoken=True)),
    Format("credentials_at_host", _simple("admin:Ip{f}8wQ3zK@10.0.0.5", "Ip{f}8wQ3zK", alone=False)),
)
FORMATS: tuple[Format, ...] = (*_EARLIER, *SAID_FORMATS)
PRIVATE_KEY_BODY = key_body(0)
