"""scripts/run_tests.sh (what CI runs) exits 0 exactly when every suite passed.

The runner is run as CI runs it, on the ``core`` suite, with ``LONGCAT_VENVS`` pointing at a directory whose ``core``
environment is a stand-in: its ``python`` answers ``-m pip`` with success and ``-m pytest`` with the exit status and
JUnit report a case asks for; its ``ruff`` and ``mypy`` pass unless a case says otherwise. Its stamp is the one
scripts/env_core.sh writes, so the runner's background builder finds it ready, as it finds a built environment.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

FAKE_PYTHON = """#!/usr/bin/env bash
if [[ "$1 $2" == "-m pip" ]]; then exit 0; fi
if [[ "$1 $2" == "-m pytest" ]]; then
  for arg in "$@"; do
    case "$arg" in --junitxml=*) report="${arg#--junitxml=}" ;; esac
  done
  failures=0
  [[ "${FAKE_PYTEST_RC:-0}" == 1 ]] && failures=1
  tests=3
  [[ "${FAKE_PYTEST_RC:-0}" == 5 ]] && tests=0
  echo "<testsuite tests=\\"$tests\\" failures=\\"$failures\\" errors=\\"0\\" skipped=\\"0\\"/>" > "$report"
  exit "${FAKE_PYTEST_RC:-0}"
fi
exec python3 "$@"
"""


def _stand_in_core(venvs: Path) -> None:
    bin_dir = venvs / "core" / "bin"
    bin_dir.mkdir(parents=True)
    tools = {
        "python": FAKE_PYTHON,
        "ruff": '#!/usr/bin/env bash\nexit "${FAKE_RUFF_RC:-0}"\n',
        "mypy": "#!/usr/bin/env bash\nexit 0\n",
    }
    for name, text in tools.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    script = (REPO / "scripts" / "env_core.sh").read_bytes() + (REPO / "scripts" / "venv_lib.sh").read_bytes()
    (venvs / "core" / ".stamp").write_text(hashlib.sha256(script).hexdigest() + "\n")


def _run(tmp_path: Path, **fakes: str) -> subprocess.CompletedProcess[str]:
    venvs = tmp_path / "venvs"
    _stand_in_core(venvs)
    env = {
        **os.environ,
        "LONGCAT_VENVS": str(venvs),
        "LONGCAT_ROOMY_GB": "0",
        "LONGCAT_BUILD_MARGIN_GB": "0",
        **fakes,
    }
    return subprocess.run(
        ["bash", str(REPO / "scripts" / "run_tests.sh"), "core"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_a_run_whose_suites_pass_exits_0(tmp_path: Path) -> None:
    run = _run(tmp_path)
    assert "[tests] all suites passed" in run.stdout, run.stdout + run.stderr
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(
    ("fakes", "said"),
    [
        ({"FAKE_PYTEST_RC": "1"}, "[tests] FAILED: core"),
        ({"FAKE_PYTEST_RC": "5"}, "collected no tests"),
        ({"FAKE_PYTEST_RC": "2"}, "[tests] FAILED: core"),
        ({"FAKE_RUFF_RC": "1"}, "[tests] FAILED: core"),
    ],
    ids=["a-failed-test", "no-tests-collected", "pytest-interrupted", "ruff-finds-something"],
)
def test_a_run_with_a_failure_exits_1(tmp_path: Path, fakes: dict[str, str], said: str) -> None:
    run = _run(tmp_path, **fakes)
    assert run.returncode == 1, run.stdout + run.stderr
    assert said in run.stdout + run.stderr
