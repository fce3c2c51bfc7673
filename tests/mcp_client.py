#!/usr/bin/env python3
"""Drives `engram mcp` with a client that is not ours: the official MCP
Python SDK (`mcp` on PyPI; .ci/run pins the version in a virtual
environment).

Usage: mcp_client.py ENGRAM_BINARY STORE_DIR

Starts `ENGRAM_BINARY --store STORE_DIR mcp` over stdio (ENGRAM_HOME is
passed on when set), then checks: the server calls itself `engram`; every
tool is listed with a description and an object input schema; remember,
recall, expand, forget, recall (gone), review, engram_save and
engram_search answer as documented; an unknown tool, an argument of the
wrong type and an out-of-range grade are errors (a tool error or a JSON-RPC
error) after which the server still answers. A line the SDK cannot parse
as a message (anything but protocol on the server's stdout) fails the run.

Prints one JSON summary on stdout and exits 0, or prints what failed on
stderr and exits 1. Written against mcp 2.x (snake_case fields); the
camelCase fields of the 1.x line are read too.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

TOOLS = [
    "memory_remember",
    "memory_recall",
    "memory_expand",
    "memory_forget",
    "memory_review",
    "memory_grade",
    "memory_confirm",
    "memory_stats",
    "memory_palace",
    "memory_l0",
    "engram_save",
    "engram_search",
    "engram_review",
]
CONTEXT_TAG = "<engram_memory_context>"
REMEMBERED = "The release train leaves on Tuesdays; hotfixes ride the Thursday shuttle."
SAVED = "The staging cluster is named heron and lives in the Frankfurt region."
# How long the whole session may take.
SESSION_TIMEOUT_S = 120


class Failure(Exception):
    """A check that did not hold."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def field(obj, snake, camel):
    """`obj.snake` (mcp 2.x) or `obj.camel` (mcp 1.x)."""
    if hasattr(obj, snake):
        return getattr(obj, snake)
    return getattr(obj, camel)


def text_of(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


class Client:
    def __init__(self, session):
        self.session = session
        self.n_calls = 0

    async def call(self, name, arguments):
        """The tool's text; fails unless the call succeeded."""
        self.n_calls += 1
        result = await self.session.call_tool(name, arguments)
        text = text_of(result)
        check(not field(result, "is_error", "isError"), f"{name}({arguments}) failed: {text}")
        return text

    async def call_json(self, name, arguments):
        text = await self.call(name, arguments)
        try:
            return json.loads(text)
        except ValueError as e:
            raise Failure(f"{name} did not answer JSON ({e}): {text}") from e

    async def refused(self, name, arguments):
        """How the call was refused (a tool error or a JSON-RPC error); fails
        if it succeeded or if the server stops answering afterwards."""
        self.n_calls += 1
        try:
            result = await self.session.call_tool(name, arguments)
        except Exception as e:  # the SDK raises the JSON-RPC error
            how = f"JSON-RPC error: {e}"
        else:
            text = text_of(result)
            check(
                field(result, "is_error", "isError"),
                f"{name}({arguments}) succeeded but should have failed: {text}",
            )
            how = f"tool error: {text}"
        stats = await self.call_json("memory_stats", {})
        check("memories_by_status" in stats, f"memory_stats after a refusal: {stats}")
        return how


async def session_checks(session):
    summary = {}
    init = await session.initialize()
    info = field(init, "server_info", "serverInfo")
    check(info.name == "engram", f"serverInfo.name is {info.name!r}, not 'engram'")
    summary["server"] = {"name": info.name, "version": info.version}
    summary["protocol_version"] = field(init, "protocol_version", "protocolVersion")

    listed = (await session.list_tools()).tools
    by_name = {t.name: t for t in listed}
    missing = [name for name in TOOLS if name not in by_name]
    check(not missing, f"tools missing from tools/list: {missing} (listed: {sorted(by_name)})")
    for name in TOOLS:
        tool = by_name[name]
        check(bool((tool.description or "").strip()), f"{name} has no description")
        schema = field(tool, "input_schema", "inputSchema")
        check(
            isinstance(schema, dict) and schema.get("type") == "object",
            f"{name} input schema is not an object schema: {schema}",
        )
    summary["tools"] = sorted(by_name)

    client = Client(session)
    receipt = await client.call_json(
        "memory_remember", {"content": REMEMBERED, "tags": ["release"]}
    )
    check(receipt.get("outcome") == "new", f"memory_remember: {receipt}")
    memory = receipt["id"]
    summary["remembered"] = memory

    recalled = await client.call("memory_recall", {"query": "when does the release train leave"})
    check(CONTEXT_TAG in recalled, f"memory_recall is not a context block: {recalled}")
    check(REMEMBERED in recalled, f"memory_recall lacks the words: {recalled}")
    check(f"memory {memory} " in recalled, f"memory_recall lacks the id {memory}: {recalled}")

    expanded = await client.call("memory_expand", {"id": memory})
    check(CONTEXT_TAG in expanded, f"memory_expand is not a context block: {expanded}")
    check(REMEMBERED in expanded, f"memory_expand lacks the original words: {expanded}")
    check('"verified":true' in expanded, f"memory_expand is not verified: {expanded}")

    forgotten = await client.call_json(
        "memory_forget", {"id": memory, "reason": "superseded by the new schedule"}
    )
    check(forgotten.get("id") == memory, f"memory_forget: {forgotten}")
    recalled = await client.call("memory_recall", {"query": "when does the release train leave"})
    check(REMEMBERED not in recalled, f"a forgotten memory came back from recall: {recalled}")
    check(f"memory {memory} " not in recalled, f"recall still names memory {memory}: {recalled}")
    summary["expand_after_forget"] = await client.refused("memory_expand", {"id": memory})
    check(
        "forgotten" in summary["expand_after_forget"],
        f"expanding a forgotten memory: {summary['expand_after_forget']}",
    )

    review = await client.call("memory_review", {})
    check(CONTEXT_TAG in review, f"memory_review is not a context block: {review}")
    check(REMEMBERED not in review, f"memory_review shows content: {review}")

    saved = await client.call_json("engram_save", {"items": [{"content": SAVED}]})
    results = saved.get("results") or []
    check(
        len(results) == 1 and results[0].get("outcome") == "new",
        f"engram_save: {saved}",
    )
    summary["saved"] = results[0]["id"]
    found = await client.call("engram_search", {"query": "staging cluster region"})
    check(CONTEXT_TAG in found and SAVED in found, f"engram_search: {found}")
    check(f"memory {results[0]['id']} " in found, f"engram_search lacks the id: {found}")

    summary["refusals"] = {
        "unknown_tool": await client.refused("memory_teleport", {"id": 1}),
        "wrong_type": await client.refused("memory_expand", {"id": "seven"}),
        "grade_out_of_range": await client.refused(
            "memory_grade", {"id": results[0]["id"], "grade": 9}
        ),
    }
    summary["calls"] = client.n_calls
    return summary


async def main(binary, store):
    env = get_default_environment()
    if "ENGRAM_HOME" in os.environ:
        env["ENGRAM_HOME"] = os.environ["ENGRAM_HOME"]
    params = StdioServerParameters(command=binary, args=["--store", store, "mcp"], env=env)
    # The SDK hands lines it cannot parse to the message handler as
    # exceptions instead of failing the session: collect them.
    unparsed = []

    async def on_message(message):
        if isinstance(message, Exception):
            unparsed.append(repr(message))

    summary, failure = None, None
    try:
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write, message_handler=on_message) as session:
                try:
                    summary = await asyncio.wait_for(
                        session_checks(session), timeout=SESSION_TIMEOUT_S
                    )
                except Exception as e:  # kept: an error while shutting down may mask it
                    failure = e
    except Exception:
        if failure is None:
            raise
    if failure is not None:
        raise failure
    check(not unparsed, f"the server wrote something other than protocol on stdout: {unparsed}")
    return summary


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mcp_client.py ENGRAM_BINARY STORE_DIR")
    try:
        print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2]))))
    except Failure as e:
        print(f"mcp_client: {e}", file=sys.stderr)
        sys.exit(1)
