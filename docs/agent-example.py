"""A phone agent's run against a live Jiyi service, end to end.

    jiyi serve &                      # or open the console: it hosts the same service
    python docs/agent-example.py [--socket PATH]

The "phone" here is simulated so the example runs anywhere: it has 微信 and
小红书 installed, and its launcher only knows package names. The agent asks
for "红薯" (a nickname Jiyi does not know yet), fails, launches the package
the failure suggested, and Jiyi learns the nickname from that run. On the next
run the same name resolves at once.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from service.client import JiyiClient

DEVICE = "demo-phone"
INSTALLED = [{"package": "com.tencent.mm", "label": "微信"}, {"package": "com.xingin.xhs", "label": "小红书"}]


def launch(jiyi: JiyiClient, run_id: str, step: int, name: str) -> str | None:
    """The agent's launch_app(name): resolve through Jiyi, launch, report the receipt."""
    answer = jiyi.resolve_app(name, device=DEVICE)
    if answer["state"] == "resolved":
        package = answer["package"]
        print(f"  resolved: {package} ({answer['reason']})")
        jiyi.run_event(
            {"run_id": run_id, "step": step, "tool": "launch_app", "result_class": "ok", "app_package": package},
            launch_name=name,
        )
        return str(package)
    candidates = [c["package"] for c in answer.get("candidates", [])][:3]
    message = f"no app named {name!r}; candidates: {', '.join(candidates) or 'none'}"
    print(f"  {answer['state']}: {message}")
    jiyi.run_event(
        {"run_id": run_id, "step": step, "tool": "launch_app", "result_class": "error", "note": "launch failed"},
        launch_name=name,
        failure_message=message,
    )
    if not candidates:
        return None
    # The model picks the first candidate and launches it by package; the device confirms.
    package = candidates[0]
    result = jiyi.run_event(
        {"run_id": run_id, "step": step + 1, "tool": "launch_app", "result_class": "ok", "app_package": package},
        launch_name=name,
    )
    for entry in result.get("learned", []):
        print(f"  learned {entry['term']} → {entry['package']}")
    return package


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--socket", help="the service's socket (default: JIYI_SOCKET, else the socket of JIYI_HOME or the default home)"
    )
    args = parser.parse_args()
    with JiyiClient(args.socket) as jiyi:
        health = jiyi.health()
        if health.get("ok") is False:
            print(f"the service is not running: {health['error']['message']}", file=sys.stderr)
            return 1
        print(f"Jiyi {health['version']} serving {health['home']}")
        for run_id in ("demo-run-1", "demo-run-2"):
            print(f"run {run_id}")
            started = jiyi.run_start(run_id, DEVICE, installed=INSTALLED)
            print(f"  inventory: {started['inventory']}")
            package = launch(jiyi, run_id, 1, "红薯")
            finished = jiyi.run_finish(run_id)
            print(f"  launched {package}; run finished after {finished['seconds']} s")
        forgotten = jiyi.forget_alias("红薯")  # leave the home as it was
        print(f"cleaned up: removed {len(forgotten['removed'])} alias(es)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
