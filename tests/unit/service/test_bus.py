"""The change bus: every publish moves the generation exactly once, listeners hear each commit."""

from __future__ import annotations

import logging
import threading

import pytest

from service.memory.bus import ChangeBus


def test_concurrent_publishers_never_lose_a_generation() -> None:
    bus = ChangeBus()
    heard: list[tuple[str, int]] = []
    lock = threading.Lock()

    def listener(domain: str, txn: int) -> None:
        with lock:
            heard.append((domain, txn))

    bus.add_listener(listener)
    start = threading.Barrier(8)

    def publish(worker: int) -> None:
        start.wait()
        for i in range(2000):
            bus.publish(f"d{worker}", i)

    threads = [threading.Thread(target=publish, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert bus.generation == 8 * 2000
    assert len(heard) == 8 * 2000


def test_a_failing_listener_is_logged_and_the_others_still_hear(caplog: pytest.LogCaptureFixture) -> None:
    bus = ChangeBus()
    heard: list[str] = []

    def broken(_domain: str, _txn: int) -> None:
        raise RuntimeError("listener bug")

    caplog.errors_expected = True  # type: ignore[attr-defined]
    bus.add_listener(broken)
    bus.add_listener(lambda domain, _txn: heard.append(domain))
    with caplog.at_level(logging.ERROR, logger="jiyi.service"):
        bus.publish("app_kb", 7)
    assert heard == ["app_kb"]
    assert any("listener failed" in r.getMessage() for r in caplog.records)


def test_a_removed_listener_hears_nothing_more() -> None:
    bus = ChangeBus()
    heard: list[int] = []

    def listener(_domain: str, txn: int) -> None:
        heard.append(txn)

    bus.add_listener(listener)
    bus.publish("desk", 1)
    bus.remove_listener(listener)
    bus.remove_listener(listener)  # twice is harmless
    bus.publish("desk", 2)
    assert heard == [1]
    assert bus.generation == 2


def test_the_bus_is_published_only_through_parts_changed() -> None:
    """One change path: the bus is private to `Parts`, whose `changed` holds a group's changes until it commits."""
    from service.memory.bus import BusView
    from tests.conftest import REPO

    assert not hasattr(BusView, "publish")
    # service/mcp is a client of the service (an import contract keeps it off the facade): the bus it publishes
    # to is the MCP SDK's own, for its `subscriptions/listen` streams, fed from the service's change notices.
    callers = [
        f"{path.relative_to(REPO)}:{number}"
        for folder in ("service", "gui")
        for path in sorted((REPO / folder).rglob("*.py"))
        if path.name not in ("bus.py", "parts.py") and "mcp" not in path.relative_to(REPO).parts
        for number, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
        if ".publish(" in line or "._bus" in line
    ]
    assert callers == []
