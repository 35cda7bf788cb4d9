"""TaskWizard interchange, round 3: a directory TaskWizard kept running after it was imported — it forgot an
alias, lost a phone, got another, compacted its App-KB log and learned more — imported again from another
path ends as TaskWizard's current App-KB where Jiyi's entries came from it, keeps what the person added in
Jiyi, and says what it recognised and why; a copy left where the first one was is not taken for it unless the
person says so (`--replaces`). The directories are written as TaskWizard's own code writes them
(`tests/taskwizard_memory.py`: `AppKbLog`)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.cli.main import main
from service.config import Config
from service.memory.memory import Memory
from store.appkb.kb import list_entries
from store.core.errors import NotFound
from tests.taskwizard_memory import AppKbLog, TaskWizardMemory, replay_appkb, taskwizard_memory

PHONE_A = [
    ("com.tencent.mm", "微信"),
    ("com.taobao.taobao", "淘宝"),
    ("com.android.settings", "设置"),
    ("com.sankuai.meituan", "美团"),
    ("com.eg.android.AlipayGphone", "支付宝"),
    ("com.tencent.qqmusic", "QQ音乐"),
    ("ctrip.android.view", "携程旅行"),
    ("com.android.contacts", "联系人"),
]
PHONE_B = [
    ("com.tencent.mm", "微信"),
    ("com.taobao.taobao", "淘宝"),
    ("com.android.settings", "设置"),
    ("com.sankuai.meituan", "美团"),
    ("com.sdu.didi.psnger", "滴滴出行"),
    ("com.xingin.xhs", "小红书"),
    ("com.netease.cloudmusic", "网易云音乐"),
    ("com.jingdong.app.mall", "京东"),
    ("com.android.chrome", "Chrome"),
]


@pytest.fixture
def hashed(hashed_config: Config) -> Iterator[Memory]:
    memory = Memory.open(hashed_config)
    yield memory
    memory.close()


def first_directory(tmp_path: Path) -> tuple[TaskWizardMemory, AppKbLog]:
    """TaskWizard on one phone: its apps, a learned alias, two user aliases (买菜 among them)."""
    tw = taskwizard_memory(tmp_path / "laptop")
    tw.appkb = []
    kb = AppKbLog(tw.appkb)
    kb.sync_device("emu-5554", PHONE_A)
    kb.learn("小红薯", "com.xingin.xhs", "run-009")
    kb.set_user_alias("老婆的微信", "com.tencent.mm")
    kb.set_user_alias("买菜", "com.sankuai.meituan")
    tw.write()
    return tw, kb


def kept_running(kb: AppKbLog) -> None:
    """TaskWizard forgets 买菜, loses the first phone, gets another, compacts its log (a full dream), then learns
    more aliases."""
    kb.forget_alias("买菜")
    for package, label in PHONE_A:
        kb.delete(label, package)
    kb.sync_device("pixel-8", PHONE_B)
    kb.learn("外卖", "com.sankuai.meituan", "run-020")
    kb.set_user_alias("记账", "com.eg.android.AlipayGphone")
    kb.compact()
    kb.set_user_alias("打车", "com.sdu.didi.psnger")
    kb.set_user_alias("听歌", "com.netease.cloudmusic")
    kb.learn("狗东", "com.jingdong.app.mall", "run-031")
    kb.learn("浏览器", "com.android.chrome", "run-032")


def moved(tw: TaskWizardMemory, to: Path) -> Path:
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(tw.root, to)
    tw.root = to
    return to


def exported_entries(memory: Memory, out: Path) -> list[dict[str, object]]:
    memory.export_taskwizard(out)
    entries: list[dict[str, object]] = json.loads((out / "app_kb" / "kb.json").read_text("utf-8"))
    return entries


def test_a_directory_moved_then_compacted_ends_as_taskwizards_app_kb(hashed: Memory, tmp_path: Path) -> None:
    tw, kb = first_directory(tmp_path)
    first = tw.root / "app_kb" / "events.jsonl"
    hashed.import_taskwizard(tw.root)
    assert hashed.appkb.resolve_app("买菜").state == "resolved"
    hashed.appkb.learn_alias("红书", "com.xingin.xhs")  # the person's own, in Jiyi: not TaskWizard's to take away
    kept_running(kb)
    tw.write()
    moved(tw, tmp_path / "new-disk" / "memory")
    assert not first.exists()

    report = hashed.import_taskwizard(tw.root)["app_kb"]

    expected = replay_appkb(kb.events)
    assert len(expected) == 17  # TaskWizard's App-KB now
    mine = exported_entries(hashed, tmp_path / "out")
    assert [e for e in mine if e["term"] != "红书"] == expected
    assert len(list_entries(hashed.store)) == 18  # its 17 and the person's own
    assert hashed.appkb.resolve_app("买菜").state != "resolved"  # TaskWizard forgot it
    assert hashed.appkb.resolve_app("红书").package == "com.xingin.xhs"
    assert hashed.appkb.resolve_app("打车").package == "com.sdu.didi.psnger"
    assert (report.rewritten, report.moved_from, report.removed) == (True, str(first), 9)
    # What it was taken for, and why: the entries that kept their first-seen times, the alias changes.
    assert report.recognised is not None and str(first) in report.recognised
    assert "moved and rewritten" in report.recognised and "first-seen time" in report.recognised
    assert "alias changes of its history" in report.recognised and report.suggestion is None
    # Read again from there: nothing new.
    before = hashed.store.last_seq()
    assert hashed.import_taskwizard(tw.root)["app_kb"].already_imported
    assert hashed.store.last_seq() == before


def test_a_copy_left_where_the_first_was_is_not_taken_for_it_unless_the_person_says_so(
    hashed: Memory, tmp_path: Path
) -> None:
    tw, kb = first_directory(tmp_path)
    old = tw.root
    hashed.import_taskwizard(old)
    # The directory is copied to another disk (the first stays) and TaskWizard goes on with the copy.
    copy = tmp_path / "copy" / "memory"
    shutil.copytree(old, copy)
    kept_running(kb)
    tw.root = copy
    tw.write()

    report = hashed.import_taskwizard(copy)["app_kb"]
    assert (report.rewritten, report.removed) == (False, 0)  # not sure: nothing taken away
    assert report.suggestion is not None and str(old / "app_kb" / "events.jsonl") in report.suggestion
    assert "still there" in report.suggestion and report.suggestion.endswith(f"--replaces {old}")
    assert hashed.appkb.resolve_app("买菜").state == "resolved"

    # The person says the copy replaces the first: TaskWizard's App-KB now, as for a move.
    again = hashed.import_taskwizard(copy, replaces=old)["app_kb"]
    assert again.recognised is not None and "--replaces" in again.recognised
    assert [e for e in exported_entries(hashed, tmp_path / "out")] == replay_appkb(kb.events)
    assert hashed.appkb.resolve_app("买菜").state != "resolved"


def test_replacing_a_folder_never_imported_is_refused_before_anything_is_read(hashed: Memory, tmp_path: Path) -> None:
    tw, _kb = first_directory(tmp_path)
    with pytest.raises(NotFound, match="nothing was imported from"):
        hashed.import_taskwizard(tw.root, replaces=tmp_path / "elsewhere")
    assert hashed.store.count_events("app_kb") == 0


def test_the_cli_says_what_it_recognised(home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tw, kb = first_directory(tmp_path)
    assert main(["import", "taskwizard", str(tw.root), "--home", str(home)]) == 0
    kept_running(kb)
    tw.write()
    first = tw.root / "app_kb" / "events.jsonl"
    moved(tw, tmp_path / "moved" / "memory")
    capsys.readouterr()
    assert main(["import", "taskwizard", str(tw.root), "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert f"{tw.root / 'app_kb' / 'events.jsonl'}: it is {first}, moved and rewritten since (compacted)" in out
    assert "deleted 9 entries it no longer has" in out
