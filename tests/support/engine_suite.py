"""Whether an engine suite's directory runs here: its modules importable, or the directory skipped, unless
``LONGCAT_REQUIRE_ENGINE`` names the engine (CI), which makes a missing module an error."""

from __future__ import annotations

import importlib.util
import os


def ignored_without(engine: str, modules: tuple[str, ...], env_script: str) -> list[str]:
    """The conftest's ``collect_ignore_glob``: every test file when one of ``modules`` cannot be imported (an
    ``ImportError`` naming them when the run requires ``engine``), else none."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return []
    if os.environ.get("LONGCAT_REQUIRE_ENGINE", "").strip().lower() == engine:
        raise ImportError(
            f"LONGCAT_REQUIRE_ENGINE={engine} but {', '.join(missing)} not importable: run the suite with "
            f".venvs/{engine}/bin/python (made by {env_script})"
        )
    return ["test_*.py"]
