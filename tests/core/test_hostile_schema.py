"""Tool schemas come from the API client: whatever their shape, preparing them and typing values by them costs time
linear in their size (and in the values), never more.

References are followed lazily, once per node, at most ``MAX_REF_HOPS`` links in a chain; cycles among references
end; nothing recurses on the depth of a schema. Each family of hostile schemas is checked for the answers it gives,
for the number of reference links followed (an operation count), and for scaling: 4x the schema costs about four
times the 1x schema's time, measured alternately in the same run (``tests/support/work.py``), where inlining
references costs exponentially more and a per-node rescan of shared parts quadratically more.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from longcat_plugins.core import ToolSchemas, parse
from longcat_plugins.core.schema import (
    MAX_REF_HOPS,
    MAX_TYPED_DEPTH,
    convert_value,
    is_string_schema,
    schema_types,
)
from tests.support.events import groups_of, stream, summary
from tests.support.strict_json import strict_json_loads
from tests.support.work import paired_ratio, repeated

Values = dict[str, str]


def tools_of(params: dict[str, Any]) -> list[Any]:
    return [{"type": "function", "function": {"name": "f", "parameters": params}}]


def prepare_and_type(tools: list[Any], values: Values) -> tuple[ToolSchemas, dict[str, Any]]:
    """What the parser does with a tool's schema for one call: look up each parameter's schema, decide whether it
    streams as a string, and convert the value when it does not."""
    schemas = ToolSchemas(tools)
    typed: dict[str, Any] = {}
    for name, raw in values.items():
        schema = schemas.parameter("f", name)
        typed[name] = raw if is_string_schema(schema) else convert_value(raw, schema)
    return schemas, typed


def xml_call(values: Values) -> str:
    return (
        "<function=f>\n" + "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in values.items()) + "</function>"
    )


def count_refs(schema: Any) -> int:
    count, stack = 0, [schema]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            count += "$ref" in item
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


# -- families of hostile schemas: n -> (parameters schema, values of one call) ------------------------------------


def recursive_root(n: int) -> tuple[dict[str, Any], Values]:
    """A root whose n properties all refer back to the root (inlined 8 levels deep, that is n**8 nodes)."""
    properties: dict[str, Any] = {f"p{i}": {"$ref": "#"} for i in range(n)}
    properties["n"] = {"type": "integer"}
    value = {f"p{i}": {f"p{(i + 1) % n}": {"n": str(i)}} for i in range(n)}
    return {"type": "object", "properties": properties}, {k: json.dumps(v) for k, v in value.items()}


def filter_schema(n: int) -> tuple[dict[str, Any], Values]:
    """A search tool's and/or/not filter, the value nested n levels."""
    params = {
        "type": "object",
        "$defs": {
            "Condition": {
                "type": "object",
                "properties": {"field": {"type": "string"}, "op": {"enum": ["eq", "lt"]}, "value": {"type": "number"}},
            },
            "Filter": {
                "anyOf": [
                    {"$ref": "#/$defs/Condition"},
                    {"type": "object", "properties": {"and": {"type": "array", "items": {"$ref": "#/$defs/Filter"}}}},
                    {"type": "object", "properties": {"or": {"type": "array", "items": {"$ref": "#/$defs/Filter"}}}},
                    {"type": "object", "properties": {"not": {"$ref": "#/$defs/Filter"}}},
                ]
            },
        },
        "properties": {"query": {"type": "string"}, "filter": {"$ref": "#/$defs/Filter"}},
    }
    values = {
        f"f{i}": json.dumps({"and": [{"field": "a", "value": str(i)}, {"not": {"value": "2"}}]}) for i in range(n)
    }
    params["properties"].update({f"f{i}": {"$ref": "#/$defs/Filter"} for i in range(n)})
    return params, values


def mutual_recursion(n: int) -> tuple[dict[str, Any], Values]:
    """n definitions, each referring to the next and the last to the first."""
    defs = {
        f"D{i}": {
            "type": "object",
            "properties": {"v": {"type": "integer"}, "next": {"$ref": f"#/$defs/D{(i + 1) % n}"}},
        }
        for i in range(n)
    }
    params = {"type": "object", "$defs": defs, "properties": {f"p{i}": {"$ref": f"#/$defs/D{i}"} for i in range(n)}}
    values = {f"p{i}": json.dumps({"v": str(i), "next": {"v": "1", "next": {"v": "2"}}}) for i in range(n)}
    return params, values


def ref_chains(n: int) -> tuple[dict[str, Any], Values]:
    """n definitions referring one to the next, the last an integer: every property starts a long chain."""
    defs: dict[str, Any] = {f"D{i}": {"$ref": f"#/$defs/D{i + 1}", "description": f"link {i}"} for i in range(n)}
    defs[f"D{n}"] = {"type": "integer"}
    params = {"type": "object", "$defs": defs, "properties": {f"p{i}": {"$ref": f"#/$defs/D{i}"} for i in range(n)}}
    return params, {f"p{i}": str(i) for i in range(n)}


def many_properties(n: int) -> tuple[dict[str, Any], Values]:
    params = {"type": "object", "properties": {f"p{i}": {"type": ["integer", "null"]} for i in range(n)}}
    return params, {f"p{i}": str(i) for i in range(0, n, 10)}


def nested_any_of(n: int) -> tuple[dict[str, Any], Values]:
    """One parameter whose schema is anyOf nested n deep, the integer at the bottom."""
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(n):
        schema = {"anyOf": [{"type": "null"}, schema]}
    return {"type": "object", "properties": {"deep": schema}}, {"deep": "7"}


def shared_options(n: int) -> tuple[dict[str, Any], Values]:
    """n distinct references (each with its own keyword) to one anyOf of n options, the integer last: answering for
    each reference without sharing what is known about the options costs n * n."""
    options: list[Any] = [{"type": "null"} for _ in range(n - 1)] + [{"type": "integer"}]
    params = {
        "type": "object",
        "$defs": {"Big": {"anyOf": options}},
        "properties": {f"p{i}": {"$ref": "#/$defs/Big", "title": f"p{i}"} for i in range(n)},
    }
    return params, {f"p{i}": str(i) for i in range(n)}


def self_ref_options(n: int) -> tuple[dict[str, Any], Values]:
    """An anyOf of n references to itself (each with its own keyword), and one integer option."""
    options: list[Any] = [{"$ref": "#/$defs/Loop", "title": str(i)} for i in range(n)] + [{"type": "integer"}]
    params = {
        "type": "object",
        "$defs": {"Loop": {"anyOf": options}},
        "properties": {"loop": {"$ref": "#/$defs/Loop"}, **{f"q{i}": options[i] for i in range(n)}},
    }
    return params, {"loop": "5", **{f"q{i}": str(i) for i in range(n)}}


Family = Callable[[int], tuple[dict[str, Any], Values]]
FAMILIES: dict[str, tuple[Family, int]] = {  # family, size at 1x for the scaling check
    "recursive-root": (recursive_root, 60),
    "filter": (filter_schema, 150),
    "mutual-recursion": (mutual_recursion, 200),
    "ref-chains": (ref_chains, 200),
    "many-properties": (many_properties, 5_000),
    "nested-anyOf": (nested_any_of, 1_000),
    "shared-options": (shared_options, 400),
    "self-ref-options": (self_ref_options, 300),
}


# -- answers ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", range(3, 9))
def test_recursive_root_is_typed_at_any_depth(n: int) -> None:
    params, _ = recursive_root(n)
    deep = {"p0": {"p1": {"p2": {f"p{n - 1}": {"p0": {"n": "5"}}}}}, "n": "1"}
    values = {"p0": json.dumps(deep), "n": "2"}
    schemas, typed = prepare_and_type(tools_of(params), values)
    assert typed == {"p0": {"p0": {"p1": {"p2": {f"p{n - 1}": {"p0": {"n": 5}}}}}, "n": 1}, "n": 2}
    assert schemas.ref_follows <= n  # each reference is followed once, however often the value meets it


@pytest.mark.parametrize("n", [3, 6, 8])
def test_recursive_root_through_the_parser(n: int) -> None:
    params, values = recursive_root(n)
    text = xml_call(values)
    tools = tools_of(params)
    message = parse(text, tools)
    arguments = strict_json_loads(message.tool_calls[0].arguments)
    assert arguments["p0"] == {"p1": {"n": 0}}
    streamed, _ = stream(groups_of(text, 7), tools)
    assert summary(streamed) == summary(message)


def test_filter_schema_is_typed_by_its_first_object_branch() -> None:
    params, _ = filter_schema(1)
    values = {"filter": '{"field": "a", "value": "1.5"}', "query": "x", "f0": '{"and": [{"value": "2"}]}'}
    _, typed = prepare_and_type(tools_of(params), values)
    assert typed == {"filter": {"field": "a", "value": 1.5}, "query": "x", "f0": {"and": [{"value": "2"}]}}


def test_mutual_recursion_is_followed_both_ways() -> None:
    params, values = mutual_recursion(2)
    schemas, typed = prepare_and_type(tools_of(params), values)
    assert typed["p0"] == {"v": 0, "next": {"v": 1, "next": {"v": 2}}}
    assert schemas.ref_follows <= 4


def test_ref_chains_are_followed_up_to_the_bound() -> None:
    n = 3 * MAX_REF_HOPS
    params, values = ref_chains(n)
    schemas, typed = prepare_and_type(tools_of(params), values)
    near = n + 1 - MAX_REF_HOPS  # from p{near} on, the integer is at most MAX_REF_HOPS links away
    assert all(typed[f"p{i}"] == i for i in range(near, n))
    assert all(typed[f"p{i}"] == str(i) for i in range(near))  # too far: no constraint, a string
    assert schemas.ref_follows <= n * MAX_REF_HOPS


@pytest.mark.parametrize(
    "defs",
    [
        {"A": {"$ref": "#/$defs/A"}},  # a reference to itself
        {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}},  # to each other
        {"A": {"$ref": "#/$defs/B", "title": "a"}, "B": {"$ref": "#/$defs/C"}, "C": {"$ref": "#/$defs/A"}},
        {"A": {"$ref": "#/$defs/missing"}},
        {"A": {"$ref": "https://example.com/schema.json"}},
        {"A": {"$ref": "#/$defs/A/anyOf/0"}},
    ],
)
def test_reference_cycles_and_dead_ends_add_no_constraint(defs: dict[str, Any]) -> None:
    params = {"type": "object", "$defs": defs, "properties": {"a": {"$ref": "#/$defs/A"}}}
    schemas, typed = prepare_and_type(tools_of(params), {"a": "5"})
    assert typed == {"a": "5"} and is_string_schema(schemas.parameter("f", "a"))
    assert schemas.ref_follows <= 4


def test_a_reference_with_keywords_of_its_own_keeps_them() -> None:
    params = {
        "type": "object",
        "$defs": {"N": {"type": "string", "description": "a number as text"}},
        "properties": {"a": {"$ref": "#/$defs/N", "type": "integer"}, "b": {"$ref": "#/$defs/N"}},
    }
    schemas = ToolSchemas(tools_of(params))
    assert schemas.parameter("f", "a") == {"type": "integer", "description": "a number as text"}
    assert schema_types(schemas.parameter("f", "a")) == ["integer"]
    assert schema_types(schemas.parameter("f", "b")) == ["string"]


def test_pointers_into_lists_and_escaped_names() -> None:
    params = {
        "type": "object",
        "$defs": {"a/b": {"anyOf": [{"type": "null"}, {"type": "integer"}]}, "t~": {"type": "boolean"}},
        "properties": {"x": {"$ref": "#/$defs/a~1b/anyOf/1"}, "y": {"$ref": "#/$defs/t~0"}},
    }
    _, typed = prepare_and_type(tools_of(params), {"x": "3", "y": "true"})
    assert typed == {"x": 3, "y": True}


def test_an_anyof_that_contains_itself() -> None:
    params, values = self_ref_options(3)
    schemas, typed = prepare_and_type(tools_of(params), values)
    assert typed == {"loop": 5, "q0": 0, "q1": 1, "q2": 2}
    assert schema_types(schemas.parameter("f", "loop")) == ["integer"]


@pytest.mark.parametrize("first", ["a", "b", "c"])
def test_an_option_cycle_answers_the_same_whatever_is_asked_first(first: str) -> None:
    params = {
        "type": "object",
        "$defs": {
            "A": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}]},
            "B": {"anyOf": [{"$ref": "#/$defs/A"}, {"type": "integer"}], "type": "string"},
        },
        "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/$defs/B"}, "c": {"$ref": "#/$defs/B"}},
    }
    schemas = ToolSchemas(tools_of(params))
    schema_types(schemas.parameter("f", first))
    assert schema_types(schemas.parameter("f", "a")) == ["integer", "null", "string"]
    assert schema_types(schemas.parameter("f", "b")) == ["string", "integer", "null"]  # its own type first
    assert convert_value("7", schemas.parameter("f", "a")) == 7


def test_deeply_nested_anyof_needs_no_recursion() -> None:
    params, values = nested_any_of(5_000)  # five times deeper than Python recurses
    schemas, typed = prepare_and_type(tools_of(params), values)
    assert typed == {"deep": 7}
    assert schema_types(schemas.parameter("f", "deep")) == ["null", "integer"]
    assert schemas.ref_follows == 0


def test_nesting_deeper_than_typed_is_kept_as_parsed() -> None:
    params = {
        "type": "object",
        "properties": {
            "v": {"type": "object", "properties": {"v": {"$ref": "#/properties/v"}, "n": {"type": "integer"}}}
        },
    }
    value: Any = {"n": "1"}
    for _ in range(MAX_TYPED_DEPTH + 5):
        value = {"v": value, "n": "1"}
    _, typed = prepare_and_type(tools_of(params), {"v": json.dumps(value)})
    level, depth = typed["v"], 0
    while isinstance(level, dict) and "v" in level:
        assert level["n"] == (1 if depth < MAX_TYPED_DEPTH else "1")
        level, depth = level["v"], depth + 1


def test_values_deeper_than_the_json_reader_goes_never_raise() -> None:
    params = {"type": "object", "properties": {"v": {"type": "array", "items": {"$ref": "#/properties/v"}}}}
    for depth in (MAX_TYPED_DEPTH + 1, 500, 5_000, 100_000):
        raw = "[" * depth + "]" * depth
        arguments = parse(xml_call({"v": raw}), tools_of(params)).tool_calls[0].arguments
        assert isinstance(json.loads(arguments)["v"], (list, str))


def test_ten_thousand_properties() -> None:
    params, values = many_properties(10_000)
    schemas, typed = prepare_and_type(tools_of(params), values)
    assert typed == {k: int(v) for k, v in values.items()}
    assert schemas.ref_follows == 0


def test_unknown_type_names_admit_anything() -> None:
    assert schema_types({"type": ["nonsense", "integer", "integer"]}) == ["integer"]
    assert is_string_schema({"type": "nonsense"})
    assert convert_value("x", {"type": "nonsense"}) == "x"


@pytest.mark.parametrize(
    ("name", "json_type"),
    [
        ("int", "integer"),
        ("float", "number"),
        ("double", "number"),
        ("bool", "boolean"),
        ("dict", "object"),
        ("list", "array"),
        ("str", "string"),
        (" Float ", "number"),
        ("INT64", "integer"),
    ],
)
def test_type_names_real_tools_write_mean_json_types(name: str, json_type: str) -> None:
    """Issue 29, item 6: the non-standard type names vLLM's qwen3_coder honours, in a type and in a type list."""
    assert schema_types({"type": name}) == [json_type]
    assert schema_types({"type": [name, "null"]}) == [json_type, "null"]
    assert schema_types({"anyOf": [{"type": name}]}) == [json_type]


# -- operation counts and scaling --------------------------------------------------------------------------------


@pytest.mark.parametrize("family", list(FAMILIES))
def test_references_followed_are_bounded_by_the_references_in_the_schema(family: str) -> None:
    build, n = FAMILIES[family]
    counts = []
    for size in (n, 4 * n):
        params, values = build(size)
        schemas, _ = prepare_and_type(tools_of(params), values)
        assert schemas.ref_follows <= MAX_REF_HOPS * count_refs(params)
        counts.append(schemas.ref_follows)
    assert counts[1] <= 4.5 * counts[0]


MAX_RATIO = 2.2  # CPU time of 4x the schema over four times the 1x schema's (linear: 1; quadratic: 4)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_schema_cost_scales_linearly(family: str) -> None:
    build, n = FAMILIES[family]
    (small_params, small_values), (large_params, large_values) = build(n), build(4 * n)
    small_tools, large_tools = tools_of(small_params), tools_of(large_params)
    ratios = []
    for _ in range(3):  # a burst of load can still slow one side of one round; a square law fails every attempt
        ratio = paired_ratio(
            lambda: prepare_and_type(large_tools, large_values),
            repeated(lambda: prepare_and_type(small_tools, small_values), 4),
        )
        ratios.append(round(ratio, 2))
        if ratio < MAX_RATIO:
            return
    pytest.fail(f"{family}: cost at 4x over four times the cost at 1x = {ratios} (linear is 1)")
