"""Commands on a read-only home, run as their own process inside a mount namespace.

`python read_only_scenario.py HOME EMPTY RUN JIYI` bind-mounts HOME (a home
holding a database) and EMPTY (an empty folder) read-only, so that root too
gets EROFS (run it where mounting is allowed: `unshare --user --map-root-user
--mount`, which also makes the mounts vanish with the process). It runs the
reads and a write on HOME, directly and through a `jiyi serve` listening in
RUN, and a write on EMPTY; it prints one JSON object with what each printed
and returned. `test_read_only_home.py` asserts on it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any


def read_only(folder: str) -> None:
    subprocess.run(["mount", "--bind", folder, folder], check=True)
    subprocess.run(["mount", "-o", "remount,ro,bind", folder], check=True)


def main() -> None:
    home, empty, run, jiyi = sys.argv[1:5]
    for folder in (home, empty):
        read_only(folder)
    socket = Path(run) / "jiyi.sock"
    alone = {k: v for k, v in os.environ.items() if not k.startswith("JIYI_")} | {"JIYI_EMBED_MODEL": "hash"}
    here = alone | {"JIYI_SOCKET": str(Path(run) / "nobody.sock")}

    def command(*words: str, at: str = home, env: dict[str, str] = here) -> dict[str, Any]:
        done = subprocess.run([jiyi, *words, "--home", at], capture_output=True, text=True, env=env, timeout=300)
        return {"code": done.returncode, "out": done.stdout, "err": done.stderr}

    seen: dict[str, Any] = {"touch": subprocess.run(["touch", f"{home}/probe"], capture_output=True).returncode}
    seen["here"] = {
        "health": command("health"),
        "resolve": command("resolve", "绿泡泡"),
        "recall-stats": command("recall-stats"),
        "alias list": command("alias", "list"),
        "recall": command("recall", "打开绿泡泡发消息", "--device", "d1"),
        "desk recall": command("desk", "recall", "周报"),
        "desk status": command("desk", "status"),
        "doctor": command("doctor"),
        "learn": command("alias", "learn", "小绿=com.tencent.mm"),
    }
    seen["empty"] = {
        "learn": command("alias", "learn", "小绿=com.tencent.mm", at=empty),
        "new home below": command("alias", "learn", "小绿=com.tencent.mm", at=f"{empty}/new"),
    }
    serve = subprocess.Popen(
        [jiyi, "serve", "--home", home, "--socket", str(socket)],
        env=alone,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while not socket.exists() and serve.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    served = alone | {"JIYI_SOCKET": str(socket)}
    seen["served"] = {
        "health": command("health", env=served),
        "resolve": command("resolve", "绿泡泡", env=served),
        "learn": command("alias", "learn", "小绿=com.tencent.mm", env=served),
    }
    serve.terminate()
    seen["serve_exit"] = serve.wait(timeout=60)
    seen["serve_log"] = serve.stderr.read() if serve.stderr else ""
    print(json.dumps(seen, ensure_ascii=False))


if __name__ == "__main__":
    main()
