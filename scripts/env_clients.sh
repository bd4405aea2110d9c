#!/usr/bin/env bash
# The client-matrix environment: the HTTP clients and agent frameworks people point at an engine, apart from the
# engines (openai-agents pins websockets<17, vLLM needs 17). The clients talk to a replay server that runs in the
# engine's own environment (.venvs/vllm, .venvs/sglang); the package is installed editable for `render`.
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
NAME=clients
if venv_ready "$NAME" "${BASH_SOURCE[0]}"; then echo "[env] $NAME up to date"; exit 0; fi
echo "[env] creating $NAME"
venv_create "$NAME"
"$VENVS_DIR/$NAME/bin/pip" install --quiet \
  "openai==3.57.0" "openai-agents==0.24.0" "anthropic==2.16.0" "httpx==0.29.0" \
  "langchain-core==1.8.3" "langchain-openai==1.8.1" "litellm==1.110.2" "pytest==9.2.0" "pytest-xdist==3.8.0"
"$VENVS_DIR/$NAME/bin/pip" install --quiet -e "$REPO_ROOT[proxy]"  # the proxy's tests (tests/proxy) need aiohttp
LITELLM_LOCAL_MODEL_COST_MAP=True "$VENVS_DIR/$NAME/bin/python" -c "import openai, agents, anthropic, langchain_openai, litellm; print('[env] clients: openai', openai.__version__)"
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
