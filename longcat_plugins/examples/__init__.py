"""Sample model outputs shipped with the package (used by ``longcat-plugins parse --example``)."""

from __future__ import annotations

from pathlib import Path

EXAMPLES_DIR = Path(__file__).parent

#: example name -> (model output file, tools file)
EXAMPLES = {
    "weather": ("weather_longcat.txt", "weather_tools.json"),
}


def example_paths(name: str) -> tuple[Path, Path]:
    try:
        output, tools = EXAMPLES[name]
    except KeyError:
        raise KeyError(f"unknown example {name!r}; known examples: {', '.join(sorted(EXAMPLES))}") from None
    return EXAMPLES_DIR / output, EXAMPLES_DIR / tools
