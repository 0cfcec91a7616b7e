"""json-schema: `response_format` with a JSON schema; the text parses and validates."""

from __future__ import annotations

from typing import Any

import orjson

from ..model import Body, Case, Context, Result, Verdict, failed, passed, user

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "population": {"type": "integer"}},
    "required": ["city", "population"],
    "additionalProperties": False,
}
TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "string": (str,),
    "integer": (int,),
    "number": (int, float),
    "boolean": (bool,),
    "array": (list,),
}


def request(ctx: Context) -> Body:
    prompt = "Name the largest city of France and its population, as JSON."
    if ctx.api == "responses":
        text = {"format": {"type": "json_schema", "name": "city", "strict": True, "schema": SCHEMA}}
        return user(prompt, ctx, text=text)
    return user(
        prompt,
        ctx,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "city", "strict": True, "schema": SCHEMA},
        },
    )


def invalid(value: Any, schema: dict[str, Any], where: str = "the answer") -> str | None:
    """Why ``value`` does not follow ``schema`` (the subset SCHEMA uses), or None."""
    kind = schema.get("type")
    types = TYPES.get(str(kind), (object,))
    if not isinstance(value, types) or (kind in ("integer", "number") and isinstance(value, bool)):
        return f"{where} is {type(value).__name__}, not {kind}"
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                return f"{where} lacks {name!r}"
        if schema.get("additionalProperties") is False:
            extra = sorted(set(value) - set(properties))
            if extra:
                return f"{where} has properties the schema does not allow: {extra}"
        for name, sub in properties.items():
            if name in value:
                problem = invalid(value[name], sub, f"{name!r}")
                if problem:
                    return problem
    return None


def check(result: Result) -> Verdict:
    run = result.first
    text = run.text()
    if not text.strip():
        return failed("no text came")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        return failed(f"the text is not JSON ({exc}): {text[:60]!r}")
    problem = invalid(value, SCHEMA)
    if problem:
        return failed(f"the JSON does not follow the schema: {problem}")
    return passed(f"the text parses and follows the schema: {text.strip()[:60]}")


CASE = Case(
    name="json-schema",
    apis=("chat", "responses"),
    expects="With `response_format` (Responses: `text.format`) `json_schema` (strict): the streamed text parses as JSON and "
    "follows the schema.",
    request=request,
    check=check,
    optional=True,
)
