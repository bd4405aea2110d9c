#!/usr/bin/env bash
# Benchmark tools, apart from the test environments: matplotlib (the plot of benchmarks/report.py) and py-spy
# (sampling a running server). The package itself is not installed here: run with PYTHONPATH at the checkout.
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
NAME=tools
if venv_ready "$NAME" "${BASH_SOURCE[0]}"; then echo "[env] $NAME up to date"; exit 0; fi
echo "[env] creating $NAME"
venv_create "$NAME"
"$VENVS_DIR/$NAME/bin/pip" install --quiet "matplotlib>=3.8" "py-spy>=0.4"
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
