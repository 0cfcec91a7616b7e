"""The test suite's fake upstream speaks the real protocol: the openai SDK's own client reads
it as it reads OpenAI."""

from __future__ import annotations

import pytest

from app.captures import read_capture
from app.domain.dialects.chat.assemble import assemble, plain

from .helpers import corpus

pytestmark = pytest.mark.integration  # starts real servers on loopback


def test_the_sdk_streams_a_replayed_capture(fake):
    from openai import OpenAI

    client = OpenAI(base_url=fake.url, api_key="sk-test-key-000000")
    stream = client.chat.completions.create(
        model="replay:openai-gpt4o-tool-parallel.sse",
        messages=[{"role": "user", "content": "hi"}],
        stream=True,
    )
    calls: dict[int, list[str]] = {}
    for chunk in stream:
        for choice in chunk.choices:
            for call in choice.delta.tool_calls or []:
                calls.setdefault(call.index, []).append(call.function.arguments or "")
    expected = plain(
        assemble(read_capture(corpus("openai-gpt4o-tool-parallel.sse")).streams[0].events)
    )
    assert ["".join(parts) for _, parts in sorted(calls.items())] == [
        c["function"]["arguments"] for c in expected["choices"][0]["message"]["tool_calls"]
    ]
    assert fake.requests[-1]["headers"]["authorization"] == "Bearer sk-test-key-000000"
    client.close()


def test_the_sdk_lists_models_and_reads_errors(fake):
    from openai import OpenAI

    client = OpenAI(base_url=fake.url, api_key="k", max_retries=0)
    assert "fake-small" in [m.id for m in client.models.list()]
    with pytest.raises(Exception, match="does not exist"):
        client.chat.completions.create(model="nope", messages=[], stream=True)
    whole = client.chat.completions.create(
        model="json", messages=[{"role": "user", "content": "x"}]
    )
    assert whole.choices[0].message.content == "A whole answer, not streamed."
    client.close()
