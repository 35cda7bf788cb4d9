"""msgspec's reading of the params and the reading field by field through `Params` never disagree.

The socket decodes a request's params with msgspec (`service/rpc/decode.py`) and, when they are refused, reads
them again field by field for the message naming the field. Were msgspec to accept what a getter refuses, or
to give another value (an epoch as an integer, a pair as a list, a default left out), a client would see it.
So every declared operation is fed a corpus of good and hostile params, and both readings must end alike: the
same struct (compared by `repr`, where 1 and 1.0 and True differ) or the same error and message.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any

import msgspec
import pytest

from service.json_types import JsonObject
from service.ops.declare import Args, Operation, checks_of
from service.ops.fields import (
    EPOCH_MAX,
    Apps,
    Boolean,
    Check,
    Choice,
    Document,
    Epoch,
    Integer,
    Items,
    Moment,
    Raw,
    Strings,
    Text,
)
from service.rpc.decode import by_getters, decoder
from service.rpc.methods import REGISTRY

HUGE = 10**30
NAN, INF = float("nan"), float("inf")


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


# What any parameter may be sent, whatever it declares: wrong types, numbers JSON or SQLite cannot keep, text
# that is not Unicode or holds NUL, nested junk.
HOSTILE: list[Any] = [
    None, True, False, 0, 1, -1, 1.0, 1.5, -0.0, INF, -INF, NAN, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, HUGE,
    "", "x", "\x00", "a\x00b", "\ud800", "a\udc00b", "记忆", "𝄞", " ", [], [None], ["x"], ["x", "y"], [1, 2],
    {}, {"a": [{}]}, {"package": "p"}, {"x": INF}, [{"x": 2**64}], _nested(60),
]  # fmt: skip


def _good(check: Check) -> list[Any]:
    """Values at and just beyond each cap of `check`."""
    if isinstance(check, Text):
        cap = check.max_chars
        found: list[Any] = ["/记忆/x", "a" * cap, "a" * (cap + 1), "𝄞" * cap, "\ud800" * min(cap, 8)]
        if check.max_bytes is not None:
            size = check.max_bytes
            found += ["é" * (size // 2), "é" * (size // 2 + 1), "𝄞" * (size // 4), "𝄞" * (size // 4 + 1)]
        return found
    if isinstance(check, Choice):
        return [*check.options, check.options[0].upper(), [check.options[0]]]
    if isinstance(check, Integer):
        return [check.low, check.high, check.low - 1, check.high + 1, (check.low + check.high) // 2, float(check.low)]
    if isinstance(check, Boolean):
        return [True, False, 0, "true"]
    if isinstance(check, Epoch):
        return [0, 1_700_000_000, 1_700_000_000.5, EPOCH_MAX, EPOCH_MAX + 1, EPOCH_MAX + 0.5, -1, -0.0, 1e-300]
    if isinstance(check, Apps):
        cap = check.max_items
        return [
            [{"package": "com.tencent.mm", "label": "微信"}],
            [["com.tencent.mm", "微信"], {"package": "p"}, {"package": "p", "label": None}, ["p", None]],
            [["p"]],
            [{"label": "x"}],
            [{"package": "p" * 257}],
            [{"package": 1}],
            [["p", "l"]] * (cap + 1),
            [{"package": "p", "label": "l", "extra": INF}],
        ]
    if isinstance(check, Strings):
        return [
            ["a"],
            ["a" * check.max_chars],
            ["a" * (check.max_chars + 1)],
            ["a"] * check.max_items,
            ["a"] * (check.max_items + 1),
            ["a", 1],
            ["a", None],
        ]
    if isinstance(check, Items):
        return [[{"name": "x", "n": 1}], [1] * check.max_items, [1] * (check.max_items + 1), [{"x": [INF]}], "x"]
    if isinstance(check, Document):
        cap = check.max_bytes
        return [{"a": 1, "b": ["记忆"]}, {"a": "x" * (cap - 8)}, {"a": "x" * (cap - 7)}, {"a": "é" * cap}, [1]]
    if isinstance(check, Moment):
        return ["2024-05-01T08:00:00+08:00", "2024-05-01", " 2024-05-01T08:00:00Z ", "3001-01-01T00:00:00Z",
                "1969-12-31T23:59:59Z", "x" * 65, "junk", 1_700_000_000, 1.5, EPOCH_MAX + 1]  # fmt: skip
    if isinstance(check, Raw):
        return [["a", "b"], ["a", "b", "c", "d"], [1.5, "x"], [1_700_000_000.0, "run"], {"k": [1]}]
    raise AssertionError(f"no corpus for {check!r}")


def _base(checks: dict[str, Check | None], params: type[Args], full: bool) -> JsonObject:
    """Params that pass each field's check: the required fields (and, when `full`, every field)."""
    chosen: JsonObject = {}
    for info in msgspec.structs.fields(params):
        check = checks[info.encode_name]
        assert check is not None
        if info.required or full:
            chosen[info.encode_name] = _good(check)[0]
    return chosen


def _corpus(params: type[Args]) -> Iterator[JsonObject]:
    checks = checks_of(params)
    bases = [_base(checks, params, full=False), _base(checks, params, full=True)]
    yield from bases
    yield {}
    for base in bases:
        yield {**base, "zzz": 1}
        yield {**base, "zzz": INF}
        yield {**base, "zzz": None}
    for name, check in checks.items():
        assert check is not None
        for base in bases:
            yield {key: value for key, value in base.items() if key != name}
            for value in [*_good(check), *HOSTILE]:
                yield {**base, name: value}
        yield {name: HUGE, "zzz": 1}  # two faults: the messages' order decides
        yield {**bases[0], name: NAN, "zzz": INF}


def _outcome(decode: Callable[[JsonObject], Args], params: JsonObject) -> tuple[str, str]:
    try:
        return "ok", repr(decode(params))
    except Exception as exc:  # the old reading raises what it raises: any difference must show
        return type(exc).__name__, str(exc)


OPERATIONS = {REGISTRY[name].operation.params: REGISTRY[name].operation for name in REGISTRY}


def test_the_corpus_covers_every_declared_operation_and_check() -> None:
    kinds = {type(check) for op in OPERATIONS.values() for check in checks_of(op.params).values()}
    assert kinds == {Text, Choice, Integer, Boolean, Epoch, Apps, Strings, Items, Document, Raw, Moment}
    assert len(REGISTRY) >= 79


@pytest.mark.parametrize("operation", OPERATIONS.values(), ids=lambda op: op.name)
def test_msgspec_and_the_getters_accept_the_same_params_and_give_the_same_values(
    operation: Operation[Any, Any],
) -> None:
    params = operation.params
    new, old = decoder(params), by_getters(params)
    accepted = 0
    for data in _corpus(params):
        expected = _outcome(old, data)
        assert _outcome(new, data) == expected, f"{operation.name} {data!r:.300}"
        accepted += expected[0] == "ok"
    assert accepted > 0, f"no params of {operation.name} were accepted: the corpus tests refusals only"


class Every(Args, frozen=True):
    """One field of each kind, with defaults that are not None: what no single operation holds at once."""

    name: Annotated[str, Text(8)]
    path: Annotated[str | None, Text(16, 16)] = None
    mode: Annotated[str, Choice(("a", "b"))] = "a"
    count: Annotated[int, Integer(-5, 5)] = 2
    at: Annotated[float | None, Epoch()] = None
    when: Annotated[str | float | None, Moment()] = None
    flag: Annotated[bool, Boolean()] = True
    tags: Annotated[list[str] | None, Strings(2, 3)] = None
    items: Annotated[list[object] | None, Items(2)] = None
    detail: Annotated[dict[str, object] | None, Document(64)] = None
    apps: Annotated[list[tuple[str, str]] | None, Apps(2)] = None
    after: Annotated[tuple[str, str] | None, Raw()] = None


def test_a_struct_of_every_kind_decodes_alike_both_ways() -> None:
    new, old = decoder(Every), by_getters(Every)
    cases = 0
    for data in _corpus(Every):
        cases += 1
        assert _outcome(new, data) == _outcome(old, data), f"{data!r:.300}"
    assert new({"name": "x", "count": None, "mode": None, "flag": None}) == Every(name="x")
    at_five = new({"name": "x", "at": 5})
    assert isinstance(at_five, Every) and repr(at_five.at) == "5.0"  # epoch seconds are a float, sent as 5
    assert cases > 500
