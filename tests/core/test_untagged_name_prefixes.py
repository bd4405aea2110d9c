"""The prefixes of the declared names, answered by bisection, are exactly the set of every prefix."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from longcat_plugins.core.untagged_names import Prefixes

NAMES = st.lists(st.text(alphabet="ab._-z", min_size=1, max_size=6), max_size=8)


@settings(max_examples=200, deadline=None)
@given(NAMES, st.text(alphabet="ab._-z", max_size=7))
def test_prefixes_match_the_set_of_every_prefix(names: list[str], text: str) -> None:
    every = {name[:k] for name in names for k in range(1, len(name) + 1)}
    assert (text in Prefixes(names)) == (text in every)


def test_prefixes_examples() -> None:
    prefixes = Prefixes(["read_file", "functions.read_file", "run"])
    assert "read_f" in prefixes and "functions." in prefixes and "ru" in prefixes and "run" in prefixes
    assert "" not in prefixes and "read_files" not in prefixes and "x" not in prefixes and "rua" not in prefixes
