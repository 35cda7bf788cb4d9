"""The static registry shipped in resources/."""

from __future__ import annotations

import pytest

from recall.registry import REGISTRY_FILE, build_registry_tsv, default_registry
from tests.conftest import REPO, SHARED_DATA


def test_registry_has_labels_aliases_and_nicknames() -> None:
    registry = default_registry()
    assert len(registry) > 300
    wechat = registry.apps["com.tencent.mm"]
    assert wechat.label == "微信"
    assert "WeChat" in wechat.aliases
    assert "绿泡泡" in wechat.nicknames
    assert registry.label_for("tv.danmaku.bili") == "哔哩哔哩"


def test_build_groups_names_and_drops_bad_rows() -> None:
    text = (
        "name\tpackage\tsource\n微信\tcom.tencent.mm\ta ; b\nWeChat\tcom.tencent.mm\ta\n"
        "we chat\tcom.tencent.mm\ta\nbad\tnot-a-package\ta\ncom.x.y\tcom.x.y\ta\n"
    )
    assert build_registry_tsv(text) == "package\tlabel\taliases\ncom.tencent.mm\t微信\tWeChat\n"


@pytest.mark.skipif(not (SHARED_DATA / "public_app_names.tsv").exists(), reason="needs ../shared/data beside the repo")
def test_shipped_registry_is_built_from_the_public_data() -> None:
    built = build_registry_tsv((SHARED_DATA / "public_app_names.tsv").read_text("utf-8"))
    assert (REPO / "resources" / REGISTRY_FILE).read_text("utf-8") == built
