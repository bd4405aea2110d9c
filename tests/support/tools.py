"""Tool definitions the suites send with a request, in the OpenAI ``tools`` shape."""

from __future__ import annotations

from typing import Any


def function_tool(
    name: str,
    properties: dict[str, Any],
    required: list[str] | None = None,
    description: str | None = None,
    **parameters: Any,
) -> dict[str, Any]:
    """``{"type": "function", "function": {...}}`` with the keys in the order clients write them (a rendered prompt
    shows that order); ``parameters`` adds schema keywords after ``required`` (``$defs``, ``additionalProperties``)."""
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required is not None:
        schema["required"] = required
    schema.update(parameters)
    function: dict[str, Any] = {"name": name}
    if description is not None:
        function["description"] = description
    function["parameters"] = schema
    return {"type": "function", "function": function}


def get_weather(
    description: str | None = "Weather for a city", *, place: str = "city", unit: bool = True
) -> dict[str, Any]:
    """The suites' weather tool: ``get_weather(place, [unit,] days)`` with the place required."""
    properties: dict[str, Any] = {place: {"type": "string"}}
    if unit:
        properties["unit"] = {"type": "string", "enum": ["celsius", "fahrenheit"]}
    properties["days"] = {"type": "integer"}
    return function_tool("get_weather", properties, [place], description)


#: the weather tool of the engine suites
WEATHER = get_weather()
