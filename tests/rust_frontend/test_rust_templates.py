"""Which response templates vLLM's Rust frontend can execute, asked of ``vllm-rs render`` (no engine): every template
the package ships, and not transformers' own Qwen3 template."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from longcat_plugins import response_templates
from tests.rust_frontend.rust_support import (
    TEMPLATE_LOADED,
    TEMPLATE_REFUSED,
    build_model_dir,
    render_log,
    rust_binary,
    transformers_qwen3_template,
)

BINARY = rust_binary()

pytestmark = [
    pytest.mark.vllm,
    pytest.mark.skipif(BINARY is None, reason="this vLLM wheel ships no Rust frontend binary (vllm/vllm-rs)"),
]


@pytest.mark.parametrize("name", response_templates.names())
def test_every_shipped_template_is_loaded(name: str, tmp_path: Path) -> None:
    assert BINARY is not None
    model = build_model_dir(tmp_path / "model", name, [])
    config = json.loads((model / "tokenizer_config.json").read_text(encoding="utf-8"))
    assert config["response_template"] == response_templates.load(name)
    log = render_log(model, BINARY)
    assert TEMPLATE_LOADED in log, log
    assert TEMPLATE_REFUSED not in log


def test_transformers_qwen3_template_is_refused(tmp_path: Path) -> None:
    """transformers' Qwen3 template as shipped: its ``\\s*``-led patterns have no literal prefix, which the Rust
    frontend requires (it then answers every chat request with HTTP 500)."""
    assert BINARY is not None
    template = transformers_qwen3_template()
    assert template["fields"]["tool_calls"]["open_pattern"].startswith(r"\s*"), template
    model = build_model_dir(tmp_path / "model", "qwen3-tools-first", [], response_template=template)
    log = render_log(model, BINARY)
    assert TEMPLATE_REFUSED in log, log
    assert "must start with a literal prefix" in log
    assert TEMPLATE_LOADED not in log
