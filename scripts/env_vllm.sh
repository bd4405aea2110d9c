#!/usr/bin/env bash
# The vLLM test environment: vLLM 0.33.0 (CUDA torch wheels, run on CPU), the test tools and the package
# itself, editable, so that its `vllm.general_plugins` entry point is registered.
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
NAME=vllm
if venv_ready "$NAME" "${BASH_SOURCE[0]}"; then echo "[env] $NAME up to date"; exit 0; fi
echo "[env] creating $NAME"
venv_create "$NAME"
"$VENVS_DIR/$NAME/bin/pip" install --quiet "vllm==0.33.0" "pytest>=8" "hypothesis>=6.100"
"$VENVS_DIR/$NAME/bin/pip" install --quiet -e "$REPO_ROOT"
"$VENVS_DIR/$NAME/bin/python" -c "import vllm, longcat_plugins; print('[env] vllm', vllm.__version__)"
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
