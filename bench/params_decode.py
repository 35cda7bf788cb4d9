"""Benchmark the decoding of a request's params alone: msgspec's reading against the reading field by field.

For a few requests agents send most (`memory.recall`, `app.resolve`, `interaction.remember`), in the same
process and on the same params:

* msgspec   — `service.rpc.decode.decoder`: msgspec decodes the params in one call, the getters read what
              msgspec cannot check exactly;
* getters   — the reading field by field through `Params` (`service.rpc.decode.checked`, then the struct's
              `check()`): how every request was decoded before, and how a refused one still is, for its message;
* refused   — a request msgspec refuses (a misspelt parameter): msgspec's try, then the getters' message.

Then the server's whole handling of one request line (`Dispatcher.handle_line`: parse, decode, the handler on a
real home, the reply encoded) for `app.resolve` and `memory.recall`, with every method's decoder the getters'
and then msgspec's, rounds interleaved: what the socket's round trip gains, without the socket's noise.

Prints the median µs of several timed rounds and the ratio. Run: `make bench` or
`python -P bench/params_decode.py [--rounds 7] [--number 20000]`.
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import json
import re
import shutil
import statistics
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.config import load_config
from service.json_types import JsonObject
from service.memory.memory import Memory
from service.ops.declare import Args
from service.rpc.decode import by_getters, decoder
from service.rpc.dispatch import Dispatcher
from service.rpc.methods import REGISTRY
from store.core.errors import InvalidInput

TURN = "帮我看看上周的报销进度，" * 8
CASES: list[tuple[str, str, JsonObject]] = [
    ("memory.recall", "memory.recall", {"query": "上周的报销进度", "limit": 8}),
    ("app.resolve", "app.resolve", {"name": "微信", "device": "bench"}),
    ("app.resolve (name only)", "app.resolve", {"name": "微信"}),
    (
        "interaction.remember",
        "interaction.remember",
        {
            "interaction_id": "turn-000042",
            "user_text": TURN,
            "assistant_text": TURN * 3,
            "source": "phone",
            "task_id": "task-7",
            "ts": "2026-11-01T08:00:00+08:00",
        },
    ),
    (
        "interaction.remember (no ts)",
        "interaction.remember",
        {"interaction_id": "turn-000042", "user_text": TURN, "assistant_text": TURN * 3},
    ),
    (
        "app.alias.list",
        "app.alias.list",
        {
            "device": "bench",
            "limit": 50,
            "order": "reference",
            "after": ["微信", "com.tencent.mm", "device", "device:bench"],
        },
    ),
]
REFUSED: list[tuple[str, str, JsonObject]] = [
    ("memory.recall, misspelt limit", "memory.recall", {"query": "上周的报销进度", "limti": 8}),
    ("app.resolve, name too long", "app.resolve", {"name": "微" * 300}),
]


def _refusing(decode: Callable[[JsonObject], Args]) -> Callable[[JsonObject], Any]:
    def call(data: JsonObject) -> str:
        try:
            decode(data)
        except InvalidInput as exc:
            return str(exc)
        raise AssertionError("the params were accepted")

    return call


def _median_us(call: Callable[[JsonObject], Any], data: JsonObject, rounds: int, number: int) -> float:
    timer = timeit.Timer(lambda: call(data))
    return statistics.median(timer.repeat(rounds, number)) / number * 1e6


def _timeless(reply: bytes) -> bytes:
    """A reply without the time it says it took."""
    return re.sub(rb'"(elapsed_ms|latency_ms)":[0-9.]+', b"", reply)


def _lines(rounds: int, number: int) -> None:
    """The server's handling of one line, every decoder the getters' against msgspec's, rounds interleaved."""
    folder = Path(tempfile.mkdtemp(prefix="jyd"))
    try:
        home = folder / "home"
        home.mkdir(mode=0o700)
        with Memory.open(load_config(home=home, env={"JIYI_EMBED_MODEL": "hash"})) as memory:
            getters_table = {name: dataclasses.replace(method, decode=by_getters(method.operation.params))
                          for name, method in ((name, REGISTRY[name]) for name in REGISTRY)}  # fmt: skip
            old, new = Dispatcher(memory, getters_table), Dispatcher(memory)
            apps = [{"package": "com.tencent.mm", "label": "微信"}, {"package": "com.taobao.taobao", "label": "淘宝"}]
            sync = {"id": 0, "method": "app.inventory.sync", "params": {"device": "bench", "apps": apps}}
            assert json.loads(new.handle_line(json.dumps(sync).encode()))["ok"]
            for method, params, calls in (
                ("app.resolve", {"name": "微信", "device": "bench"}, number),
                ("memory.recall", {"query": "上周的报销进度", "limit": 8}, max(20, number // 10)),
            ):
                line = json.dumps({"id": 1, "method": method, "params": params}, ensure_ascii=False).encode()
                assert _timeless(old.handle_line(line)) == _timeless(new.handle_line(line))
                times: dict[str, list[float]] = {"old": [], "new": []}
                for _ in range(rounds):
                    for side, dispatcher in (("old", old), ("new", new)):
                        seconds = timeit.timeit(functools.partial(dispatcher.handle_line, line), number=calls)
                        times[side].append(seconds / calls * 1e6)
                before, after = statistics.median(times["old"]), statistics.median(times["new"])
                print(f"{method + ' line':<34} {before:>10.2f} {after:>10.2f} {after / before:>6.2f}x")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    print(f"{'params':<34} {'getters µs':>10} {'msgspec µs':>10} {'ratio':>7}")
    for cases, refusing in ((CASES, False), (REFUSED, True)):
        for label, method, data in cases:
            params = REGISTRY[method].operation.params
            new, old = decoder(params), by_getters(params)
            if refusing:
                new, old = _refusing(new), _refusing(old)
                assert new(data) == old(data)
            else:
                assert repr(new(data)) == repr(old(data))
            before = _median_us(old, data, args.rounds, args.number)
            after = _median_us(new, data, args.rounds, args.number)
            print(f"{label:<34} {before:>10.2f} {after:>10.2f} {after / before:>6.2f}x")
    _lines(args.rounds, max(200, args.number // 20))


if __name__ == "__main__":
    main()
