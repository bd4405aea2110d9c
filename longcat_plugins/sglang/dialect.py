"""The dialect SGLang constrains tool calls to (``tool_choice="required"``, a named tool, strict tools).

The table lives in :mod:`longcat_plugins.core.dialects`. SGLang's detector is built without the tokenizer, so the
dialect is not read from the vocabulary as on vLLM: it is ``LONGCAT_TOOL_DIALECT`` (a name of
:data:`~longcat_plugins.core.dialects.DIALECTS`), by default :data:`~longcat_plugins.core.dialects.DEFAULT`. A
mistyped value is an error that lists the choices.
"""

from __future__ import annotations

from longcat_plugins.core.dialects import DEFAULT, DIALECTS, ENV_VAR, Dialect, dialect_override

__all__ = ["DEFAULT", "DIALECTS", "ENV_VAR", "Dialect", "dialect_from_env"]


def dialect_from_env() -> Dialect:
    """The dialect named by ``LONGCAT_TOOL_DIALECT``, else LongCat JSON."""
    return dialect_override() or DIALECTS[DEFAULT]
