"""``longcat-plugins doctor``: check that the installed engines will serve ``longcat`` with our parsers."""

from __future__ import annotations

import argparse
import platform
import sys
from pathlib import Path
from typing import Any

from longcat_plugins import __version__


def add_parser(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "doctor",
        help="check the installation next to vLLM / SGLang (versions, entry points, parsers, templates)",
        description=(
            "For each engine installed in this environment (vLLM, SGLang): its version against the "
            "supported range, the 'longcat' plugin entry point, the engine's plugin allow-list, and -- after "
            "the engine's own plugin loading -- that 'longcat' resolves to this package's tool and reasoning "
            "parsers and parses a sample; the environment variables the plugin reads. Also renders every shipped "
            "chat template. Exit status 1 when something is wrong; an engine that is not installed is only a "
            "note, unless it is named with --engine."
        ),
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    p.add_argument(
        "--engine",
        action="append",
        choices=["vllm", "sglang"],
        help="check only this engine, which must be installed (repeatable; default: every supported engine, "
        "where installed)",
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="do not import the engines: versions, entry points and allow-lists only (no 10-20 s import)",
    )
    p.add_argument(
        "--model",
        metavar="DIR",
        help="also check a model (or tokenizer) directory: the response template its tokenizer_config.json carries "
        "(for vLLM's hf parsers, its Rust frontend and SGLang's response_template parser)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from longcat_plugins.doctor import ENGINES, run_checks
    from longcat_plugins.doctor.report import as_json, failed, summary, table

    engines = [e for e in ENGINES if not args.engine or e.key in args.engine]

    def progress(message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    model = Path(args.model) if args.model is not None else None
    checks = run_checks(engines, probe=not args.quick, progress=progress, required=args.engine or (), model=model)
    header = {
        "longcat_plugins": __version__,
        "python": platform.python_version(),
        "executable": sys.executable,
    }
    if args.json:
        print(as_json(checks, header))
    else:
        print(f"longcat-plugins {__version__} doctor (Python {header['python']}, {sys.executable})\n")
        print(table(checks))
        print()
        print(summary(checks))
    return 1 if failed(checks) else 0
