"""How many turns of ordinary conversation the redaction filter changes, and what it takes from them.

Ordinary text should keep its words: a filter that finds "secrets" in
everyday talk loses memory. This reads conversations (the Chinese desk
development set `zh_desk_dev/conv_*.json`: user and assistant texts; LoCoMo
`locomo/conv-*.json`: every turn) and the public phone tasks
(`public_tasks.tsv`, the first column), redacts each turn with the formats
alone and with the shipped word list too, and prints per corpus how many turns
changed. `--show` prints each changed turn (formats alone) beside what the
filter made of it, to tell a true find (a phone number, an e-mail address, a
password said in a turn) from a false one.

Run: `python -P bench/redaction_false_positives.py [--data ../shared/data] [--show]`.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from store.core.redaction.redactor import Redactor, default_words


def turns(data: Path) -> Iterator[tuple[str, str]]:
    """(corpus, text) of every turn found under `data`."""
    for path in sorted(data.glob("zh_desk_dev/conv_*.json")):
        for interaction in json.loads(path.read_text("utf-8"))["interactions"]:
            yield "zh_desk_dev", interaction["user_text"]
            yield "zh_desk_dev", interaction["assistant_text"]
    for path in sorted(data.glob("locomo/conv-*.json")):
        for key, value in json.loads(path.read_text("utf-8")).items():
            if key.startswith("session_") and isinstance(value, list):
                for turn in value:
                    yield "locomo", turn["text"]
    tasks = data / "public_tasks.tsv"
    if tasks.is_file():
        with tasks.open(encoding="utf-8") as stream:
            for row in csv.reader(stream, delimiter="\t"):
                if row:
                    yield "public_tasks", row[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--show", action="store_true", help="print each turn the formats change")
    args = parser.parse_args()
    formats, full = Redactor(), Redactor(default_words())
    counts: dict[str, list[int]] = {}
    started = time.process_time()
    for corpus, text in turns(args.data):
        count = counts.setdefault(corpus, [0, 0, 0])
        count[0] += 1
        clean = formats.redact(text)
        if clean != text:
            count[1] += 1
            if args.show:
                print(f"{corpus} | {text}\n    -> {clean}")
        count[2] += full.redact(text) != text
    for corpus, (total, changed, with_words) in counts.items():
        print(f"{corpus}: {total} turns, {changed} changed by the formats, {with_words} with the word list too")
    print(f"({time.process_time() - started:.2f} s of CPU for {sum(c[0] for c in counts.values())} turns, twice)")


if __name__ == "__main__":
    main()
