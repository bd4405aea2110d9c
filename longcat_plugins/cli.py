"""The ``longcat-plugins`` command."""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import os
import sys
from collections.abc import Sequence

from . import __version__
from .commands.errors import UsageError

#: the subcommands, each a module of ``commands`` (its name with ``_`` for ``-``) whose ``add_parser(subparsers)`` sets
#: ``run`` as the parser's default
COMMANDS = ("parse", "template", "response-template", "render", "example", "doctor", "serve", "proxy")
PROG = "longcat-plugins"
#: exit status after Ctrl-C, as shells report a process ended by SIGINT
INTERRUPTED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Tool-call and reasoning parsers and chat templates for LongCat models on vLLM and SGLang.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        module_name = f"{__package__}.commands.{name.replace('-', '_')}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as e:
            if e.name == module_name:
                continue  # not part of this build
            raise
        module.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Whatever happens, the user sees at most one line about it on stderr: a usage mistake
    (status 2), an output that cannot be written (1), Ctrl-C (130)."""
    _text_streams_in_utf8()
    command = PROG
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        command = f"{PROG} {args.command}" if getattr(args, "command", None) else PROG
        if not getattr(args, "run", None):
            parser.print_help(sys.stderr)
            return 2
        status = int(args.run(args))
        sys.stdout.flush()
        return status
    except UsageError as e:
        _say(f"{command}: error: {e}")
        return 2
    except KeyboardInterrupt:
        _silence_stdout()
        _say(f"{command}: interrupted")
        return INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()  # the reader went away (`| head`): not an error
        return 0
    except OSError as e:
        if not _is_stdout_error(e):
            raise
        _silence_stdout()
        _say(f"{command}: error: cannot write the output: {e.strerror or e}")
        return 1


def _text_streams_in_utf8() -> None:
    """Output is UTF-8 (as every input is read), whatever the locale; a message never fails on a character."""
    with contextlib.suppress(OSError, ValueError):
        if isinstance(sys.stdout, io.TextIOWrapper):
            sys.stdout.reconfigure(encoding="utf-8")
        if isinstance(sys.stderr, io.TextIOWrapper):
            sys.stderr.reconfigure(errors="backslashreplace")


#: errors of writing the output: a full disk or quota, a file too large, a terminal that went away
_WRITE_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


def _is_stdout_error(error: OSError) -> bool:
    """Whether ``error`` came from writing stdout, not from a file a command opened (those name their file)."""
    return error.errno in _WRITE_ERRNOS and error.filename is None


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's last flush of unwritable output prints nothing."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _say(message: str) -> None:
    with contextlib.suppress(OSError):
        print(message, file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
