"""An MCP client from the `mcp` package: tools listed and `ask` called over stdio and over HTTP."""

import json
import os

import anyio
import pytest

from ...conftest import graphrag_exe
from ..test_load_web import site  # noqa: F401  (the local HTTP server fixture)
from .conftest import KEY

pytestmark = pytest.mark.e2e
READ_TOOLS = {"ask", "search", "get_document", "graph_neighbourhood", "schema", "communities", "community_report"}


def structured(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content:
        return result.structured_content.get("result", result.structured_content)
    return json.loads(result.content[0].text)


async def exercise(client) -> tuple[set, dict, dict, dict]:
    tools = {t.name for t in (await client.list_tools()).tools}
    answer = structured(await client.call_tool("ask", {"question": "Who made the silver lantern?"}))
    search = structured(await client.call_tool("search", {"query": "silver lantern", "mode": "fulltext", "k": 3}))
    schema = structured(await client.call_tool("schema", {}))
    return tools, answer, search, schema


def check(tools, answer, search, schema, writes: bool) -> None:
    assert READ_TOOLS <= tools and (("learn" in tools) == writes)
    assert answer["citations"] and answer["citations"][0]["title"] in answer["answer"]
    assert 1 <= len(search["evidence"]) <= 3 and all(len(e["text"]) <= 1502 for e in search["evidence"])
    assert schema["labels"]["Document"] >= 1 and "FROM_DOCUMENT" in json.dumps(schema["relationships"])


def test_stdio(served):
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    env = dict(os.environ, **served.neo4j.env(), GRAPHRAG_ENV_FILE=str(served.tmp / "no.env"))
    for name in ("OPENAI_BASE_URL", "GRAPHRAG_LLM_MODEL", "GRAPHRAG_API_KEY"):
        env.pop(name, None)
    params = StdioServerParameters(command=graphrag_exe(), args=["mcp"], env=env, cwd=str(served.tmp))

    async def main():
        async with Client(params, read_timeout_seconds=180) as client:
            return await exercise(client)

    tools, answer, search, schema = anyio.run(main)
    check(tools, answer, search, schema, writes=False)
    assert "No LLM" in answer["note"]


def test_streamable_http_with_the_key(served, site):  # noqa: F811
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async def main():
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {KEY}"}, timeout=120) as http:
            transport = streamable_http_client(served.url + "/mcp", http_client=http)
            async with Client(transport, read_timeout_seconds=120) as client:
                found = await exercise(client)
                document = found[2]["evidence"][0]["document_id"]
                doc = structured(await client.call_tool("get_document", {"document_id": document}))
                around = structured(await client.call_tool("graph_neighbourhood", {"node_id": document, "limit": 3}))
                learned = structured(await client.call_tool("learn", {"request": f"harbours | url: {site}/ostia.html"}))
                assert learned["documents"]["created"] == 1
                refused = await client.call_tool("learn", {"request": "harbours | path: /etc"})
                assert refused.is_error and "--allow-path" in refused.content[0].text
                missing = await client.call_tool("get_document", {"document_id": "file:nope:x.md"})
                assert missing.is_error and "no document with id" in missing.content[0].text
                return found, doc, around

    (tools, answer, search, schema), doc, around = anyio.run(main)
    check(tools, answer, search, schema, writes=True)  # served with --mcp-writes and a key
    assert doc["chunks"] and doc["title"]
    assert around["nodes"][0]["id"] == doc["id"] and len(around["nodes"]) <= 4
