"""README.md's install commands, run as written, from a fresh clone into a fresh virtual environment beside each
engine (CI runs this as the ``install`` suite of scripts/run_tests.sh).

"Beside the engine" is a new virtual environment that sees the engine's installed packages through a ``.pth`` line
(as ``--system-site-packages`` does for a system Python): the engine is there, longcat-plugins is not, and pip
installs into the new environment only (it does not touch the engine environment, where it reports the copy it
finds there as "outside environment"). Its ``python``, ``pip`` and ``longcat-plugins`` come first on ``PATH``, as
after ``source venv/bin/activate``. The clone is of this checkout's committed state (its HEAD commit).

The engine environments are the test suite's (``.venvs/vllm``, ``.venvs/sglang``, or ``$LONGCAT_VENVS``); with
``LONGCAT_REQUIRE_INSTALL=1`` a missing one fails the test instead of skipping it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENVS = Path(os.environ.get("LONGCAT_VENVS", REPO / ".venvs"))
REQUIRED = os.environ.get("LONGCAT_REQUIRE_INSTALL") == "1"
ENGINES = ("vllm", "sglang")
#: what the SGLang test environment needs to import SGLang's server modules (it has no torchvision; see
#: scripts/env_sglang.sh): not part of an install, only of this machine
SGLANG_STANDINS = REPO / "tests" / "sglang" / "_standins"


def _install_blocks() -> tuple[str, str]:
    """The README's two install blocks: from a clone, and as a wheel."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Install\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```bash\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == 2, f"expected two bash blocks in README's Install section, found {len(blocks)}"
    clone, wheel = blocks
    assert "git clone" in clone and "pip install --no-deps ./longcat-plugins" in clone, clone
    assert "scripts/build_wheel.sh" in wheel and "pip install --no-deps" in wheel, wheel
    return clone, wheel


def _guide_blocks(heading: str, count: int) -> list[str]:
    guide = (REPO / "deployment_guide.md").read_text(encoding="utf-8")
    section = guide.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
    blocks = re.findall(r"^```bash\n(.*?)^```", section, re.S | re.M)
    assert len(blocks) == count, f"expected {count} bash blocks under {heading!r} in the guide, found {len(blocks)}"
    return blocks


def _doctor_package_row(venv: Path, engine: str, env: dict[str, str]) -> str:
    report = subprocess.run(
        [str(venv / "bin" / "longcat-plugins"), "doctor", "--quick", "--json", "--engine", engine],
        cwd=venv,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert report.returncode == 0, report.stdout + report.stderr
    rows = [c for c in json.loads(report.stdout)["checks"] if c["section"] == "package"]
    return str(rows[0]["detail"])


def _engine_python(engine: str) -> Path:
    python = VENVS / engine / "bin" / "python"
    if not python.is_file():
        if REQUIRED:
            pytest.fail(f"no {engine} environment at {python} (scripts/env_{engine}.sh builds it)")
        pytest.skip(f"no {engine} environment at {python}")
    return python


def _venv_beside(engine_python: Path, where: Path) -> Path:
    """A fresh virtual environment that also sees the engine's site-packages."""
    subprocess.run([str(engine_python), "-m", "venv", str(where)], check=True, capture_output=True, timeout=300)
    engine_site = subprocess.run(
        [str(engine_python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    own_site = subprocess.run(
        [str(where / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(own_site) / "_beside_the_engine.pth").write_text(engine_site + "\n", encoding="utf-8")
    return where


def _env(venv: Path, engine: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    env["VIRTUAL_ENV"] = str(venv)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    if engine == "sglang":
        env["PYTHONPATH"] = str(SGLANG_STANDINS)
    env.update(extra)
    return env


def _run_block(code: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = cwd / "block.sh"
    script.write_text(code, encoding="utf-8")
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", str(script)], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )


def _origin(where: Path) -> Path:
    """A repository to clone from whose default branch is this checkout's HEAD commit (also when the checkout's
    HEAD is detached, as in some CI clones, where ``git pull`` in a clone of it would have no branch to follow)."""
    origin = where / "origin.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(REPO), str(origin)], check=True, timeout=300)
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(["git", "-C", str(origin), "update-ref", "refs/heads/main", head], check=True)
    subprocess.run(["git", "-C", str(origin), "symbolic-ref", "HEAD", "refs/heads/main"], check=True)
    return origin


def _imported_from(venv: Path, env: dict[str, str]) -> str:
    return subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import longcat_plugins; print(longcat_plugins.__file__)"],
        cwd=venv,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.mark.parametrize("engine", ENGINES)
def test_install_from_a_clone_beside_the_engine(engine: str, tmp_path: Path) -> None:
    clone_block, _ = _install_blocks()
    venv = _venv_beside(_engine_python(engine), tmp_path / "venv")
    env = _env(venv, engine, LONGCAT_PLUGINS_GIT=str(_origin(tmp_path)))
    code = clone_block.replace("--engine vllm", f"--engine {engine}")
    result = _run_block(code, tmp_path, env)
    assert result.returncode == 0, f"{code}--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
    assert "doctor: all checks passed" in result.stdout
    assert "plugin loading" in result.stdout  # the full doctor: the engine imported and its plugins loaded
    assert _imported_from(venv, env).startswith(str(venv))
    assert _doctor_package_row(venv, engine, env).endswith(f" at {_imported_from(venv, env).rsplit('/', 1)[0]}")

    # the guide's upgrade, then its uninstall, in the same environment
    upgrade, uninstall = _guide_blocks("### Upgrade and uninstall", 2)
    result = _run_block(upgrade.replace("--engine vllm", f"--engine {engine}"), tmp_path, env)
    assert result.returncode == 0, f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
    assert "doctor: all checks passed" in result.stdout
    result = _run_block(uninstall, tmp_path, env)
    assert result.returncode == 0, result.stderr
    assert not (venv / "bin" / "longcat-plugins").exists()


@pytest.mark.parametrize("engine", ENGINES)
def test_install_the_wheel_beside_the_engine(engine: str, tmp_path: Path) -> None:
    _, wheel_block = _install_blocks()
    venv = _venv_beside(_engine_python(engine), tmp_path / "venv")
    env = _env(venv, engine)
    clone = tmp_path / "longcat-plugins"
    subprocess.run(["git", "clone", "--quiet", str(_origin(tmp_path)), str(clone)], check=True, timeout=300)
    result = _run_block(wheel_block + "longcat-plugins doctor --quick --engine " + engine + "\n", clone, env)
    assert result.returncode == 0, f"--- stdout ---\n{result.stdout}\n--- stderr ---\n{result.stderr}"
    assert "doctor: all checks passed" in result.stdout
    wheels = list((clone / "dist").glob("longcat_plugins-*-py3-none-any.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        license_text = next(wheel.read(n) for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    assert b"Apache License" in license_text and b"Version 2.0, January 2004" in license_text
    assert any(n.endswith("examples/weather_agent.jsonl") for n in names)
    # from the installed wheel, with no checkout in sight: the shipped files are found by name
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    example = subprocess.run(
        ["longcat-plugins", "example", "weather_agent"], cwd=outside, env=env, capture_output=True, text=True
    )
    assert example.returncode == 0 and example.stdout.strip().startswith(str(venv)), example
    parsed = subprocess.run(
        ["longcat-plugins", "parse", "--example", "weather"], cwd=outside, env=env, capture_output=True, text=True
    )
    assert parsed.returncode == 0 and '"finish_reason": "tool_calls"' in parsed.stdout, parsed


def test_the_install_blocks_are_marked_for_a_machine() -> None:
    """Not run by tests/test_docs_commands.py (they need an engine environment): run here instead."""
    for block in _install_blocks():
        assert block.startswith("# needs: "), block


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_this_checkout_can_be_cloned() -> None:
    assert subprocess.run(["git", "-C", str(REPO), "rev-parse", "HEAD"], capture_output=True).returncode == 0, (
        f"{REPO} is not a git checkout: the install tests clone it"
    )

