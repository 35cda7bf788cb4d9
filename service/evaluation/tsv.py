"""Reading the small TSV files the evaluation commands take, with errors that name the line."""

from __future__ import annotations

from pathlib import Path

from store.core.errors import InvalidInput, NotFound


def read_tsv(path: Path, required: tuple[str, ...], what: str) -> list[tuple[int, dict[str, str]]]:
    """Rows of a TSV with a header holding `required` columns, as (line number, row)."""
    path = Path(path)
    if not path.is_file():
        raise NotFound(f"{what} file {path} does not exist")
    try:
        text = path.read_text("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{what} file {path} is not UTF-8 (byte {exc.start})") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise InvalidInput(f"{what} file {path} is empty; it needs a header with {', '.join(required)}")
    header = [h.strip() for h in lines[0].split("\t")]
    missing = [c for c in required if c not in header]
    if missing:
        raise InvalidInput(
            f"{what} file {path}: the header lacks {', '.join(missing)} "
            f"(found {', '.join(header)}; columns are separated by tabs)"
        )
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        if len(cells) < len(header):
            cells += [""] * (len(header) - len(cells))
        row = {name: cells[i].strip() for i, name in enumerate(header)}
        for column in required:
            if not row[column]:
                raise InvalidInput(f"{what} file {path}, line {number}: {column} is empty")
        rows.append((number, row))
    if not rows:
        raise InvalidInput(f"{what} file {path} has a header but no rows")
    return rows
