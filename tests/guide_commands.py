"""The deployment guide's engine command lines, as a shell would run them (shared by the engine suites)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from longcat_plugins import templates

GUIDE = Path(__file__).resolve().parent.parent / "deployment_guide.md"
#: values for the shell variables the guide's commands use
SHELL_VARS = {"MASTER_IP": "10.0.0.1", "NODE_RANK": "0", "MODEL": "org/some-model"}


def guide_commands(program: str) -> list[str]:
    """Logical command lines (continuations joined) of the guide's shell blocks that run ``program``."""
    text = GUIDE.read_text(encoding="utf-8")
    commands = []
    for block in re.finditer(r"^```(?:bash|sh|shell)\n(.*?)^```", text, re.S | re.M):
        for line in block.group(1).replace("\\\n", " ").splitlines():
            if program in line and not line.lstrip().startswith("#"):
                commands.append(" ".join(line.split()))
    return commands


def shell_words(command: str) -> tuple[dict[str, str], list[str]]:
    """The command as the shell runs it: leading VAR=value pairs, then argv, $(...) and $VAR expanded."""

    def template(m: re.Match[str]) -> str:
        return shlex.quote(str(templates.template_path(m.group(1))))

    command = re.sub(r'"\$\(longcat-plugins template ([\w-]+)\)"', template, command)
    command = re.sub(r"\$(\w+)", lambda m: SHELL_VARS[m.group(1)], command)
    words = shlex.split(command)
    env = {}
    while words and re.match(r"^[A-Z_]+=", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    return env, words


def check_guide_has(commands: list[str], at_least: int, flags: tuple[str, ...]) -> None:
    """The guide has ``at_least`` deployments of the engine, and between them they use every one of ``flags``."""
    assert len(commands) >= at_least, commands
    joined = "\n".join(commands)
    for flag in flags:
        assert flag in joined
