"""Running the installed ``longcat-plugins`` console script in a subprocess, as a user does."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the console script pip installed next to this interpreter (``[project.scripts]``)
SCRIPT = Path(sys.executable).with_name("longcat-plugins")


@dataclass(frozen=True)
class Result:
    status: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return self.err.splitlines()


def script() -> str:
    assert SCRIPT.is_file(), f"no console script at {SCRIPT}: the package is not installed in this environment"
    return str(SCRIPT)


def cli_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(extra)
    return env


def run_cli(*args: str, input: str | bytes | None = None, env: dict[str, str] | None = None, **kw: Any) -> Result:
    """Run ``longcat-plugins ARGS`` and return its status and output (decoded as UTF-8)."""
    data = input.encode("utf-8") if isinstance(input, str) else input
    proc = subprocess.run(
        [script(), *args],
        input=data,
        capture_output=True,
        env=env if env is not None else cli_env(),
        timeout=300,
        check=False,
        **kw,
    )
    return Result(proc.returncode, proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8", "backslashreplace"))
