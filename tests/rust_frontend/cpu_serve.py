"""``vllm serve`` for the Rust-frontend tests: vLLM's own CLI, on the platform of a process that runs no model.

``python -m tests.rust_frontend.cpu_serve serve ARGS`` is ``vllm serve ARGS`` with vLLM's platform set to
:func:`longcat_plugins.replay.platform.replay_platform_class`: vLLM's CPU platform without its config hook, which
sets up a CPU model runner and, since vLLM 0.34, refuses an x86 CPU without Triton. The engine core here runs no
model (its executor is :mod:`tests.rust_frontend.scripted_executor`), so the hook has nothing to set up. The platform
is set on import: in the process that runs the command, and in the engine core process, which multiprocessing's
spawn starts by importing this module again as its main module.
"""

from __future__ import annotations

import sys


def use_replay_platform() -> None:
    """Make vLLM's platform the replay platform, before any config is built."""
    import vllm.platforms as platforms

    from longcat_plugins.replay.platform import replay_platform_class

    platforms.current_platform = replay_platform_class()()
    config_module = sys.modules.get("vllm.config.vllm")
    if config_module is not None:  # imported before: it holds its own reference
        config_module.current_platform = platforms.current_platform  # type: ignore[attr-defined]


use_replay_platform()

if __name__ == "__main__":
    from vllm.entrypoints.cli.main import main

    sys.exit(main())
