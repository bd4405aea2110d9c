"""The platform the replay server and the vLLM tests give vLLM on a machine without an accelerator.

vLLM's configs need a platform with a device type; with no accelerator vLLM finds none. Its CPU platform has one, but
its config hook sets up a CPU model runner, and since vLLM 0.34 refuses x86 CPUs without Triton (0.33 warned). The
replay runs no model: :class:`ReplayPlatform` is vLLM's CPU platform without that hook.
"""

from __future__ import annotations

import sys
from typing import Any


def replay_platform_class() -> type:
    from vllm.platforms.cpu import CpuPlatform

    class ReplayPlatform(CpuPlatform):  # type: ignore[misc,valid-type]
        """vLLM's CPU platform for a process that runs no model (no model runner, no Triton)."""

        @classmethod
        def check_and_update_config(cls, vllm_config: Any) -> None:
            return None

    return ReplayPlatform


def use_cpu_platform() -> None:
    """Make vLLM's platform :class:`ReplayPlatform` when it found no accelerator (before any config is built)."""
    import vllm.platforms as platforms

    if platforms.current_platform.is_unspecified():
        platforms.current_platform = replay_platform_class()()  # as vLLM's own CLI sets the CPU platform
        config_module = sys.modules.get("vllm.config.vllm")
        if config_module is not None:  # imported before: it holds its own reference
            config_module.current_platform = platforms.current_platform  # type: ignore[attr-defined]
