"""What the deployment guide and the README tell a deployer agrees with the code and with the shipped files."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from pathlib import Path

import pytest

from longcat_plugins.cli import COMMANDS
from longcat_plugins.core import dialects as D
from longcat_plugins.examples import EXAMPLES_DIR, recordings
from tests.docs_tables import regenerated
from tests.guide_commands import guide_commands

REPO = Path(__file__).resolve().parent.parent
GUIDE = (REPO / "deployment_guide.md").read_text(encoding="utf-8")
README = (REPO / "README.md").read_text(encoding="utf-8")


def _commands_for(model: str) -> list[str]:
    return [c for c in guide_commands("vllm serve") + guide_commands("sglang.launch_server") if model in c]


def test_qwen3_coder_is_served_with_its_own_template() -> None:
    commands = _commands_for("Qwen3-Coder")
    assert len(commands) == 2
    assert all("--chat-template" not in c for c in commands)
    sglang = next(c for c in commands if "sglang" in c)
    assert sglang.startswith("LONGCAT_TOOL_DIALECT=xml ")


def test_the_xml_thinking_recording_does_not_claim_qwen3_coders_template() -> None:
    header = json.loads((EXAMPLES_DIR / "weather_agent_qwen3_coder.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert header["template"] == "xml-function-thinking"
    assert "served with its own template" in header["note"]
    row = next(line for line in GUIDE.splitlines() if line.startswith("| Qwen3-Coder |"))
    assert "the model's own" in row and "| no (not a reasoning model) |" in row


def test_longcat_flash_thinking_section() -> None:
    commands = _commands_for("LongCat-Flash-Thinking")
    assert len(commands) == 2
    assert all("--chat-template" not in c and "--reasoning-parser longcat" in c for c in commands)
    sglang = next(c for c in commands if "sglang" in c)
    assert sglang.startswith("LONGCAT_TOOL_DIALECT=kv ")
    section = GUIDE.split("### LongCat-Flash-Thinking\n", 1)[1].split("\n### ", 1)[0]
    assert "<longcat_think>" in section and "enable_thinking" in section and "--reasoning-open" in section


def test_parse_options_are_documented() -> None:
    for option in ("--reasoning-open", "--seed", "--engine sglang", "finish_reason"):
        assert option in GUIDE and option in README, option


def test_every_command_is_in_the_readme() -> None:
    section = README.split("## The `longcat-plugins` command", 1)[1].split("\n## ", 1)[0]
    for command in COMMANDS:
        assert re.search(rf"longcat-plugins {command}\b", section), command


def test_shipped_recordings_are_named_in_the_guide() -> None:
    for name in recordings():
        assert name in GUIDE, name


def test_the_guide_covers_what_a_deployer_needs() -> None:
    for heading in (
        "### Docker",
        "### Kubernetes",
        "### Several API server processes",
        "### Upgrade and uninstall",
        "### Environment variables",
        "### LongCat-Flash-Thinking",
        "### Qwen3-Coder",
    ):
        assert f"\n{heading}\n" in GUIDE, heading
    assert "readinessProbe" in GUIDE and "livenessProbe" in GUIDE
    assert "--api-server-count" in GUIDE and "--tokenizer-worker-num" in GUIDE
    assert "SGLANG_HTTP_SERVER_APP_PATH=longcat_plugins.sglang.http_app:app" in GUIDE


def test_no_install_command_assumes_a_published_package() -> None:
    """Until a release, every install line installs from the repository (the index lines say "once published")."""
    for doc, text in (("README.md", README), ("deployment_guide.md", GUIDE)):
        for block in re.findall(r"^```(?:bash|sh|dockerfile)\n(.*?)^```", text, re.S | re.M):
            for line in block.splitlines():
                if "pip install" in line and not line.lstrip().startswith("#"):
                    assert not re.search(r"pip install (--no-deps )?[\"']?longcat-plugins\b", line), (doc, line)


_NAME = r"(?<![\w.-])`{0,2}[A-Za-z_][\w.-]*`{0,2}"
#: names are joined by commas, ``/``, "or", "and" (across a line break too), or by a ``|`` with no space (a table
#: row's ``|`` between cells joins nothing)
_SEPARATOR = r"(?:[ \t]*\n?[ \t]*(?:[,/]|,? or|,? and)[ \t]*\n?[ \t]*|\|)"
_LIST = re.compile(rf"{_NAME}(?:{_SEPARATOR}{_NAME})+")


def _prose() -> dict[str, str]:
    """What a reader reads about the dialects: the docs (not the changelog, which is history), and the package's,
    the benchmarks' and the examples' docstrings and comments."""
    paths = [REPO / "README.md", REPO / "deployment_guide.md", *sorted((REPO / "docs").rglob("*.md"))]
    for folder in ("longcat_plugins", "benchmarks", "examples"):
        paths += sorted(p for p in (REPO / folder).rglob("*") if p.suffix in (".py", ".md"))
    return {str(p.relative_to(REPO)): p.read_text(encoding="utf-8") for p in paths}


def _wrong_dialect_lists(text: str, registry: Collection[str]) -> list[str]:
    """The lists in ``text`` that name two dialects or more but not exactly the registered ones (names match whole)."""
    wrong = []
    for match in _LIST.finditer(text):
        names = [name.strip("`") for name in re.split(_SEPARATOR, match.group())]
        if len(set(names) & set(registry)) >= 2 and sorted(names) != sorted(registry):
            wrong.append(match.group())
    return wrong


@pytest.mark.parametrize(
    "text",
    [
        "LONGCAT_TOOL_DIALECT=json|kv|xml|hermes|glm",
        "one of ``json``, ``kv``, ``xml``,\n``hermes2``",
        "`json`, `kv` and `xml`",
        "json, kv, xml, hermes, hermes",
    ],
)
def test_a_list_that_is_not_the_registry_is_found(text: str) -> None:
    assert len(_wrong_dialect_lists(text, D.DIALECTS)) == 1
    assert _wrong_dialect_lists("`json`, `kv`, `xml` or `hermes`; vLLM's `hermes`, `qwen3_coder`", D.DIALECTS) == []


def test_every_list_of_dialects_names_exactly_the_registered_ones() -> None:
    for path, text in _prose().items():
        assert _wrong_dialect_lists(text, D.DIALECTS) == [], path


def test_every_list_of_dialects_follows_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """With one more dialect registered, every list the docs show names it once regenerated: none is hand-written."""
    block = D.Block("<tool_calls>", "</tool_calls>")
    extra = D.Dialect(
        name="calls",
        title="Test-only JSON",
        models="none",
        block=block,
        trigger=block.open,
        prefix=f'{block.open}{{"name": "',
        name_suffix='", "arguments": ',
        end=f"}}{block.close}",
        body="json",
    )
    monkeypatch.setitem(D.DIALECTS, extra.name, extra)
    for path, text in _prose().items():
        assert _wrong_dialect_lists(regenerated(text), D.DIALECTS) == [], path
