"""Sample model outputs, conversations and replay recordings shipped with the package.

``longcat-plugins parse --example NAME`` parses a sample output; ``longcat-plugins example`` prints where the files
are (they are inside the installed package, so a wheel has them too); ``serve --replay`` takes a recording's name.
"""

from __future__ import annotations

from pathlib import Path

EXAMPLES_DIR = Path(__file__).parent
SUFFIXES = (".txt", ".json", ".jsonl")

#: example name -> (model output file, tools file)
EXAMPLES = {
    "weather": ("weather_longcat.txt", "weather_tools.json"),
}


class UnknownExampleError(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"no shipped example file {name!r}; shipped: {', '.join(shipped_files())}")


def example_paths(name: str) -> tuple[Path, Path]:
    try:
        output, tools = EXAMPLES[name]
    except KeyError:
        raise KeyError(f"unknown example {name!r}; known examples: {', '.join(sorted(EXAMPLES))}") from None
    return EXAMPLES_DIR / output, EXAMPLES_DIR / tools


def shipped_files() -> list[str]:
    """The file names of the shipped examples."""
    return sorted(p.name for p in EXAMPLES_DIR.iterdir() if p.suffix in SUFFIXES and p.is_file())


def shipped_path(name: str) -> Path:
    """The path of a shipped example file, by file name or by name without its suffix (``weather_agent``)."""
    files = shipped_files()
    matches = [f for f in files if name in (f, Path(f).stem)]
    if len(matches) != 1:
        raise UnknownExampleError(name)
    return EXAMPLES_DIR / matches[0]


def recordings() -> list[str]:
    """The names (without ``.jsonl``) of the shipped replay recordings."""
    return [Path(f).stem for f in shipped_files() if f.endswith(".jsonl")]
