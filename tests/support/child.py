"""A child Python interpreter (this one), as a user runs ``python -m longcat_plugins ...`` or a script."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Mapping


def run_python(
    *args: str, env: Mapping[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` with its output as text; the exit status is the caller's to check."""
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )
