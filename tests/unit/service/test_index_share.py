"""The desk index's share of the time beside the writes (`service.memory.index_share`)."""

from __future__ import annotations

import time

import pytest

from service.memory.index_share import BEHIND, LEAST, MOST, QUIET, IndexShare


def test_with_no_write_heard_the_index_goes_batch_after_batch() -> None:
    share = IndexShare()
    share.worked(took=2.0, writes_held=0.0, behind=True)
    assert share.wait() == 0.0


def test_beside_light_writes_the_index_rests_as_long_as_it_worked() -> None:
    share = IndexShare()
    share.heard_write()
    share.worked(took=2.0, writes_held=0.01, behind=False)  # a few writes a second: the write lock mostly free
    assert 2.0 * (1 - MOST) / MOST - 0.5 < share.wait() <= 2.0 * (1 - MOST) / MOST


def test_far_behind_the_index_takes_more_of_the_time() -> None:
    share = IndexShare()
    share.heard_write()
    share.worked(took=2.0, writes_held=0.01, behind=True)
    assert 2.0 * (1 - BEHIND) / BEHIND - 0.5 < share.wait() <= 2.0 * (1 - BEHIND) / BEHIND < 2.0


def test_beside_a_burst_the_index_rests_longer_but_still_has_its_least_share() -> None:
    share = IndexShare()
    share.heard_write()
    # the writes held the write lock all along (longer than the batch, summed over their threads)
    share.worked(took=1.0, writes_held=5.0, behind=True)
    rest = (1 - LEAST) / LEAST
    assert rest - 0.5 < share.wait() <= rest


@pytest.mark.parametrize("held", [0.0, 0.3, 1.0])
def test_the_rest_ends_and_a_quiet_moment_ends_it_early(held: float) -> None:
    share = IndexShare()
    share.heard_write()
    share.worked(took=0.05, writes_held=0.05 * held, behind=False)
    time.sleep(0.05 * (1 - LEAST) / LEAST + 0.01)
    assert share.wait() == 0.0  # rested its part
    share.heard_write()
    share.worked(took=60.0, writes_held=0.0, behind=False)
    assert share.wait() > 0
    time.sleep(QUIET + 0.01)
    assert share.wait() == 0.0  # no write since: it goes on
