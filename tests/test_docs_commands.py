"""Every command of README.md and deployment_guide.md that can run without a GPU and without an engine, run.

The fenced ``bash``/``sh``/``shell`` and ``python`` blocks of each document are run in order, as a reader
would run them: each document gets its own scratch copy of the repository as the working directory (so files
one block writes are there for the next, and nothing lands in the real checkout), with this interpreter's
environment first on ``PATH`` (``longcat-plugins``, ``python``). A block that must run elsewhere says so on
its first line::

    # needs: 8 GPUs (FP8 weights); run on the GPU node

Such blocks are reported as skipped, with their reason. Any other block must exit with status 0.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = ("README.md", "deployment_guide.md")
SHELL = {"bash", "sh", "shell"}
PYTHON = {"python", "py", "python3"}
NEEDS = re.compile(r"^\s*#\s*needs:\s*(?P<why>\S.*)$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})\s*(?P<info>[^`]*)$")
#: commands that cannot run here: a GPU server, a long-running server or a request to one, the environment
#: builders and the test suite itself (it would recurse into this test). An unmarked block using one fails
#: with a clear message instead of being run.
NEEDS_A_MACHINE = re.compile(
    r"\bvllm serve\b|\bsglang\.launch_server\b|\blongcat-plugins (?:serve|proxy)\b|\bcurl\b.*\bhttps?://|base_url=|"
    r"--base-url\b|\bscripts/\w+\.sh\b|\bpytest\b"
)
#: set for the blocks' processes: a block that runs the tests anyway finds nothing to run here (no recursion)
DEPTH_VAR = "LONGCAT_DOCS_COMMANDS_RUNNING"
#: at least this many runnable blocks per document, so that marking everything as "needs" cannot pass silently
MIN_RUNNABLE = {"README.md": 1, "deployment_guide.md": 5}
IGNORED = shutil.ignore_patterns(
    ".git",
    ".venv",
    ".venvs",
    "__pycache__",
    "*.egg-info",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".benchmarks",
    "build",
    "dist",
)


@dataclass(frozen=True)
class Block:
    doc: str
    line: int  # line of the opening fence, 1-based
    lang: str
    code: str

    @property
    def needs(self) -> str | None:
        first = next((line for line in self.code.splitlines() if line.strip()), "")
        m = NEEDS.match(first)
        return m["why"] if m else None

    @property
    def runnable_kind(self) -> str | None:
        return "shell" if self.lang in SHELL else "python" if self.lang in PYTHON else None

    def __str__(self) -> str:
        return f"{self.doc}:{self.line}"


def code_blocks(doc: str, text: str | None = None) -> list[Block]:
    blocks: list[Block] = []
    lines = (text if text is not None else (REPO / doc).read_text(encoding="utf-8")).splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m is None:
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"])
        lang = (m["info"].split() or [""])[0].lower()
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            body.append(lines[j][indent:] if lines[j][:indent].isspace() else lines[j])
            j += 1
        if j == len(lines):
            raise AssertionError(f"{doc}:{i + 1}: code block never closed")
        blocks.append(Block(doc, i + 1, lang, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


if os.environ.get(DEPTH_VAR):
    pytest.skip("inside a documentation block run by this test", allow_module_level=True)

ALL_BLOCKS = [b for doc in DOCS if (REPO / doc).exists() for b in code_blocks(doc)]
RUN_BLOCKS = [b for b in ALL_BLOCKS if b.runnable_kind]


@pytest.fixture(scope="module")
def workdirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """One scratch copy of the repository per document, shared by that document's blocks in order."""
    dirs = {}
    for doc in DOCS:
        target = tmp_path_factory.mktemp(doc.replace(".", "_")) / "repo"
        shutil.copytree(REPO, target, ignore=IGNORED, symlinks=True)
        dirs[doc] = target
    return dirs


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.pop("PYTHONPATH", None)
    env.setdefault("PIP_DISABLE_PIP_VERSION_CHECK", "1")
    env[DEPTH_VAR] = "1"
    return env


@pytest.mark.parametrize("block", RUN_BLOCKS, ids=str)
def test_block_runs(block: Block, workdirs: dict[str, Path], tmp_path: Path) -> None:
    if block.needs is not None:
        pytest.skip(f"needs: {block.needs}")
    bad = NEEDS_A_MACHINE.search(block.code)
    if bad is not None:
        pytest.fail(
            f"{block}: this block uses {bad.group(0)!r}, which cannot run here; start it with '# needs: ...'"
        )
    script = tmp_path / ("block.sh" if block.runnable_kind == "shell" else "block.py")
    script.write_text(block.code, encoding="utf-8")
    command = (
        ["bash", "-e", "-o", "pipefail", str(script)]
        if block.runnable_kind == "shell"
        else [sys.executable, str(script)]
    )
    result = subprocess.run(
        command, cwd=workdirs[block.doc], env=_env(), capture_output=True, text=True, timeout=900, check=False
    )
    assert result.returncode == 0, (
        f"{block} ({block.lang} block) exited with status {result.returncode}\n--- block ---\n{block.code}"
        f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    )


@pytest.mark.parametrize("doc", DOCS)
def test_documents_have_runnable_commands(doc: str) -> None:
    assert (REPO / doc).exists(), f"{doc} is missing"
    runnable = [b for b in code_blocks(doc) if b.runnable_kind and b.needs is None]
    assert len(runnable) >= MIN_RUNNABLE[doc], f"{doc}: only {len(runnable)} runnable blocks: {runnable}"


def test_needs_marker_only_on_its_own_first_line() -> None:
    """A '# needs:' line anywhere but first would silently not exclude the block: reject it."""
    for block in ALL_BLOCKS:
        later = [line for line in block.code.splitlines()[1:] if NEEDS.match(line)]
        assert not later, f"{block}: '# needs:' must be the first line of the block"


def test_code_block_parser() -> None:
    text = "text\n```bash\n# needs: a GPU\nvllm serve m\n```\n\n~~~python\nprint(1)\n~~~\n```json\n{}\n```\n"
    blocks = code_blocks("sample.md", text)
    assert [(b.line, b.lang, b.needs, b.runnable_kind) for b in blocks] == [
        (2, "bash", "a GPU", "shell"),
        (7, "python", None, "python"),
        (10, "json", None, None),
    ]


def test_guide_dialect_table_matches_the_adapters() -> None:
    """Section 5 lists exactly the LONGCAT_TOOL_DIALECT values each adapter accepts (both accept the same)."""
    from longcat_plugins.sglang.dialect import DIALECTS as SGLANG_DIALECTS
    from longcat_plugins.vllm.tokenizer_facts import DIALECTS as VLLM_DIALECTS

    guide = (REPO / "deployment_guide.md").read_text(encoding="utf-8")
    table = guide.split("| `LONGCAT_TOOL_DIALECT` | forced syntax |", 1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \|", table, re.M)
    assert sorted(rows) == sorted(VLLM_DIALECTS) == sorted(SGLANG_DIALECTS)
