"""Import and export the reference's recall scorecard (`memory/experience/recall_stats.json`, schema_v 2).

Imported as one `recall_stats_imported` event: its counters become the
starting point of Jiyi's all-time recall totals (marked as imported), and the
whole object — procedure counters, `*_errors`, `latest` and all — is kept.
Importing the same file again does nothing; a newer file replaces the
starting point. The export continues the imported object with each of Jiyi's
own evaluations by the reference's update rule and writes it as the
reference does (`indent=2`, sorted keys, `ensure_ascii=False`): with nothing
evaluated since, the same bytes come back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from store.core.database import Store
from store.core.errors import InvalidInput
from store.core.home.atomic_file import write_text
from store.episodes import recall_stats
from store.interchange.import_report import ImportReport
from store.interchange.import_source import refuse_links
from store.interchange.json_reading import MiB, load_json, mib, plain

FILE = "recall_stats.json"
# Where the reference keeps it: `<memory_dir>/experience/` (whatever the experience directory's override);
# directories written before that have it at their root.
PLACES = ("experience", ".")
STATS_CAP = 4 * MiB  # a scorecard is a few KiB


def stats_path(root: Path) -> Path | None:
    """The scorecard of the memory directory `root`: `experience/recall_stats.json`, else `recall_stats.json`."""
    for place in PLACES:
        path = Path(root) / place / FILE
        if path.exists() or path.is_symlink():
            return path
    return None


def import_recall_stats(store: Store, root: Path, *, actor: str = "import") -> ImportReport:
    """Take the scorecard of `root` (see `stats_path`) as the imported starting counters (once per content),
    remembering where it was for the export. A file that is not a JSON object is reported damaged and not
    taken (the reference starts a new scorecard over it)."""
    path = stats_path(root) or Path(root) / PLACES[0] / FILE
    refuse_links(path.parent, path)
    report = ImportReport(str(path))
    if not path.is_file():  # a folder or a FIFO planted there is not read (a FIFO would block the import)
        raise InvalidInput(f"{path} is not a regular file; nothing imported from it")
    try:
        with open(path, "rb") as stream:
            raw = stream.read(STATS_CAP + 1)
        if len(raw) > STATS_CAP:
            raise InvalidInput(f"larger than {mib(STATS_CAP)}, the most Jiyi reads of a scorecard")
        data: Any = load_json(raw, "")
        if not isinstance(data, dict):
            raise InvalidInput("not a JSON object")
    except InvalidInput as exc:
        report.damaged_view(path, plain(exc), "not imported (TaskWizard starts a new scorecard over it)")
        return report
    except OSError as exc:
        raise InvalidInput(f"{path} cannot be read ({exc.strerror}); nothing imported") from None
    if data.get("schema_v") != 2:
        # The reference itself starts a schema_v 2 scorecard afresh: v1 rates have other denominators.
        report.skip(FILE, f"schema_v {data.get('schema_v')!r} is not 2; its counters are not comparable")
        return report
    place = path.parent.name if path.parent != Path(root) else "."
    with store.atomic():
        # The same file again, or this home's own scorecard as it would export it now (a backup brought
        # back): its counters are already in the totals, and taking them as the starting point would
        # count every evaluation twice.
        if recall_stats.baseline(store) == data or recall_stats.stats_file(store) == data:
            report.already_imported = True
            return report
        payload = {"stats": data, "source": str(path), "place": place}
        store.append(recall_stats.DOMAIN, "recall_stats_imported", payload, actor=actor)
    report.imported = 1
    return report


def _place(store: Store) -> str:
    """Where the last imported scorecard was in its directory (`experience` when none was imported)."""
    place = PLACES[0]
    for event in store.events(recall_stats.DOMAIN, types=["recall_stats_imported"]):
        value = event.payload.get("place")
        place = value if value in PLACES else PLACES[0]
    return place


def export_recall_stats(store: Store, root: Path) -> dict[str, int]:
    """Write the scorecard where the imported directory had it (`experience/recall_stats.json` by default)
    when there is anything to say (an import, an evaluation, a procedure selection or a failure)."""
    path = Path(root) / _place(store) / FILE
    refuse_links(path.parent, path)
    data = recall_stats.stats_file(store)
    in_experience = int(path.parent.name == PLACES[0])  # 0: at the directory's root, as the imported one was
    if set(data) == {"schema_v"}:
        return {"evaluations": 0, "written": 0, "in_experience": in_experience}
    write_text(path, json.dumps(data, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    evaluations = data.get("evaluations")
    return {
        "evaluations": evaluations if isinstance(evaluations, int) else 0,
        "written": 1,
        "in_experience": in_experience,
    }
