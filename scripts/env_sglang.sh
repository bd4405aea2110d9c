#!/usr/bin/env bash
# The SGLang test environment (DESIGN.md section 6): SGLang 0.5.23 installed without its CUDA dependency tree,
# the CPU build of torch 2.13.0, the modules the import chains of SGLang's parsers, OpenAI serving classes and
# HTTP server need (every version pinned), and the package itself (editable, so its entry point is registered).
# PyPI's torchvision cannot load beside CPU torch 2.13.0 and is left out: tests/sglang/conftest.py supplies an
# import-time stand-in for SGLang's multimodal modules (see there).
source "$(dirname "${BASH_SOURCE[0]}")/venv_lib.sh"
NAME=sglang
if venv_ready "$NAME" "${BASH_SOURCE[0]}"; then echo "[env] $NAME up to date"; exit 0; fi
echo "[env] creating $NAME"
venv_create "$NAME"
PY="$VENVS_DIR/$NAME/bin/python"
PIP=("$PY" -m pip install --quiet --disable-pip-version-check)

# SGLang's own requirements pull CUDA torch 2.14.1, flashinfer, etc.: install the wheel alone.
"${PIP[@]}" --no-deps "sglang==0.5.23"

# torch first and alone: pip takes 2.13.0+cpu from its find-links (/opt/wheels); nothing below may replace it.
"${PIP[@]}" "torch==2.13.0"

REQS="$(mktemp)"
trap 'rm -f "$REQS"' EXIT
cat > "$REQS" <<'PINS'
torch==2.13.0
aiohappyeyeballs==2.7.1
aiohttp==3.14.5
aiosignal==1.4.0
annotated-doc==0.0.7
annotated-types==0.8.0
anyio==4.16.0
apache-tvm-ffi==0.1.11
asttokens==3.0.2
attrs==26.1.0
certifi==2026.10.19.post1
cffi==2.1.1
charset-normalizer==3.5.3
click==8.5.1
compressed-tensors==0.18.0
dill==0.4.1
distro==1.9.0
execnet==2.1.2
einops==0.8.2
executing==2.3.0
fastapi==0.165.0
filelock==4.3.1
frozenlist==1.8.0
fsspec==2026.9.0
gguf==0.19.0
h11==0.16.0
hf-xet==1.8.0
httpcore==1.0.9
httpx==0.29.0
huggingface_hub==1.33.0
hypothesis==6.170.17
idna==3.20
iniconfig==2.3.1
ipython==9.18.1
ipython_pygments_lexers==1.1.1
jedi==0.20.1
Jinja2==3.1.6
jiter==0.19.0
jsonschema==4.26.0
jsonschema-specifications==2025.9.1
loguru==0.7.3
markdown-it-py==4.3.0
MarkupSafe==3.0.4
matplotlib-inline==0.2.2
mdurl==0.1.2
mpmath==1.3.0
msgspec==0.23.0
multidict==7.2.1
networkx==3.6.1
numpy==2.4.6
openai==2.8.0
openai-harmony==0.0.4
opentelemetry-api==1.45.2
orjson==3.13.0
packaging==26.4
parso==0.8.7
partial-json-parser==0.2.1.1.post7
pexpect==4.9.0
pillow==13.0.0
pluggy==1.7.0
prompt_toolkit==3.0.53
propcache==0.5.4
psutil==7.2.2
ptyprocess==0.7.0
pure_eval==0.2.4
pybase64==1.5.1
pycparser==3.12
pydantic==2.14.4
pydantic_core==2.50.5
Pygments==2.21.0
pytest==9.2.0
pytest-xdist==3.8.0
python-multipart==0.0.34
PyYAML==6.0.4
pyzmq==27.3.0
referencing==0.37.0
regex==2026.11.19
requests==2.34.2
rich==15.0.0
rpds-py==2026.9.1
safetensors==0.8.0
sentencepiece==0.2.1
setproctitle==1.3.8
shellingham==1.5.4
sniffio==1.3.1
sortedcontainers==2.4.0
soundfile==0.13.1
stack-data==0.6.3
starlette==1.10.0
sympy==1.14.0
tokenizers==0.23.2
tqdm==4.70.1
traitlets==5.16.1
transformers==5.19.0
triton==3.9.0
typer==0.29.2
typing-inspection==0.4.5
typing_extensions==4.16.0
urllib3==2.8.0
uvicorn==0.55.0
uvloop==0.23.0
wcwidth==0.9.4
xgrammar==0.2.7
yarl==1.25.1
PINS
"${PIP[@]}" -r "$REQS"
"${PIP[@]}" --no-deps -e "$REPO_ROOT"

# Fail loudly when the environment is not what the tests expect.
"$PY" - <<'CHECK'
import importlib.metadata as md

import torch

assert torch.__version__ == "2.13.0+cpu", f"expected the CPU build of torch 2.13.0, got {torch.__version__}"
assert not torch.version.cuda, f"a CUDA build of torch is installed ({torch.version.cuda})"
assert md.version("sglang") == "0.5.23", md.version("sglang")

from sglang.srt.function_call.function_call_parser import FunctionCallParser  # noqa: E402,F401
from sglang.srt.parser.reasoning_parser import ReasoningParser  # noqa: E402,F401
from sglang.srt.server_args import ServerArgs  # noqa: E402,F401

names = [ep.name for ep in md.entry_points(group="sglang.srt.plugins")]
assert "longcat" in names, f"the longcat entry point is missing from sglang.srt.plugins: {names}"
print("[env] sglang", md.version("sglang"), "torch", torch.__version__)
CHECK
venv_mark_ready "$NAME" "${BASH_SOURCE[0]}"
