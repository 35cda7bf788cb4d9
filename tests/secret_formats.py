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

    @property
    def compact(self) -> str:
        """The secret as one word (for names and ids): spaces left out, so it still reads as the same secret."""
        return self.text.replace(" ", "")


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


def _simple(template: str, needle: str, *, alone: bool = True) -> Callable[[int], Secret]:
    """A secret whose text and needle differ per family by the digit `{f}`."""
    return lambda f: Secret(template.format(f=f), (needle.format(f=f),), alone)


_GHP = "R8kT2vQ9xL4mN7pW1zY6bC3dF5gH0jKsAeU"
_AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY{f}EXAMPLEKE"
FORMATS: tuple[Format, ...] = (
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
)
PRIVATE_KEY_BODY = key_body(0)
