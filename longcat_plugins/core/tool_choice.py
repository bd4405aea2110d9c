"""What a request's ``tool_choice`` asks of the model."""

from __future__ import annotations


def forces_a_call(tool_choice: object) -> bool:
    """Whether ``tool_choice`` asks for a call: ``"required"``, or a named tool (an object, in any API's shape)."""
    return tool_choice == "required" or (tool_choice is not None and not isinstance(tool_choice, str))
