"""A server for a test: started in its own process group, ready once its log prints its address, and stopped with
SIGTERM (the engines' graceful shutdown), then SIGKILL for anything left of its group."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

START_TIMEOUT = 300.0  # a safety net for a stuck start-up, not a speed requirement
STOP_TIMEOUT = 60.0
GROUP_TIMEOUT = 10.0
#: the line ``longcat-plugins serve`` (or ``proxy``) prints once it accepts requests
READY = re.compile(r"^longcat-plugins (?:serve|proxy): .* at (http://\S+)$", re.MULTILINE)


@dataclass
class Started:
    process: subprocess.Popen[bytes]
    url: str
    log: Path


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def stop_server(process: subprocess.Popen[bytes]) -> int:
    """Stop a server that leads its own session and everything left of its group; its exit status."""
    pgid = process.pid
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(pgid, signal.SIGKILL)
            process.wait()
    deadline = time.monotonic() + GROUP_TIMEOUT
    while group_alive(pgid) and time.monotonic() < deadline:  # children of the server
        with suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
        time.sleep(0.05)
    return process.returncode


@contextmanager
def running(command: Sequence[str], name: str, cwd: Path, env: dict[str, str] | None = None) -> Iterator[Started]:
    """Run ``command`` until the block ends, once its log shows the ready line; ``name`` says which server failed."""
    fd, log_name = tempfile.mkstemp(prefix="longcat-server-", suffix=".log")
    log = Path(log_name)
    with os.fdopen(fd, "wb") as out:
        process = subprocess.Popen(
            list(command),
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + START_TIMEOUT
        url = None
        while url is None:
            text = log.read_text(encoding="utf-8", errors="replace")
            match = READY.search(text)
            if match:
                url = match.group(1)
            elif process.poll() is not None:
                raise RuntimeError(f"the {name} exited ({process.returncode}):\n{text[-4000:]}")
            elif time.monotonic() > deadline:
                raise RuntimeError(f"the {name} did not start:\n{text[-4000:]}")
            else:
                time.sleep(0.1)
        yield Started(process, url, log)
    finally:
        stop_server(process)
        assert not group_alive(process.pid), f"a process of the {name} (group {process.pid}) is still running"
        log.unlink(missing_ok=True)
