"""Every engine name the adapters and replay servers import is declared once in ``longcat_plugins.contracts``
(engine-free: read from the source)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from longcat_plugins import contracts

PACKAGE = Path(contracts.__file__).resolve().parent
ENGINES = ("vllm", "sglang")
ADAPTERS = ("vllm", "sglang", "replay", "sglang_replay")


def _declared() -> set[str]:
    return {
        target
        for _, group, _ in (g for groups in contracts.GROUPS.values() for g in groups)
        for c in group
        for target in c.targets
    }


def _engine_imports() -> list[tuple[str, str]]:
    """``(where, "module:name")`` for each ``from engine... import name``; ``"module:"`` for ``import engine...``."""
    found = []
    for folder in ADAPTERS:
        for path in sorted((PACKAGE / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                where = f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)}"
                if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ENGINES:
                    found += [(where, f"{node.module}:{alias.name}") for alias in node.names]
                elif isinstance(node, ast.Import):
                    found += [(where, f"{a.name}:") for a in node.names if a.name.split(".")[0] in ENGINES]
    return found


def test_every_engine_import_is_a_declared_contract() -> None:
    declared = _declared()
    modules = {target.partition(":")[0] for target in declared}
    undeclared = []
    for where, name in _engine_imports():
        module, _, attribute = name.partition(":")
        if not attribute:
            ok = module in modules
        else:  # a name of the module, or a module of the package
            ok = name in declared or any(t.startswith(f"{module}.{attribute}:") for t in declared)
            ok = ok or any(t.startswith(f"{name}.") for t in declared)
        if not ok:
            undeclared.append(f"{where} {name}")
    assert undeclared == [], "declare these in longcat_plugins/contracts.py"


def test_adapter_contract_groups_are_the_declared_ones() -> None:
    """The adapters check at registration exactly what contracts.py declares for them (no second list)."""
    source = (PACKAGE / "vllm" / "__init__.py").read_text(encoding="utf-8")
    assert "Contract(" not in source
    assert "Contract(" not in (PACKAGE / "sglang" / "__init__.py").read_text(encoding="utf-8")


@pytest.mark.parametrize("engine", ENGINES)
def test_every_contract_names_the_releases_it_was_checked_on(engine: str) -> None:
    for _, group, _ in contracts.GROUPS[engine]:
        for contract in group:
            assert contract.checked_on, contract.target
            assert ":" in contract.target, contract.target


def test_importing_the_contracts_imports_no_engine() -> None:
    code = (
        "import sys, longcat_plugins.contracts\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('vllm', 'sglang', 'torch')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
