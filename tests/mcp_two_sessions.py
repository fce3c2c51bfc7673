#!/usr/bin/env python3
"""Two agent sessions on one project store at once, each an `engram mcp`
driven by the official MCP Python SDK (`mcp` on PyPI).

Usage: mcp_two_sessions.py ENGRAM_BINARY PROJECT_DIR

Starts two `ENGRAM_BINARY mcp` servers in PROJECT_DIR (a git repository:
both resolve the same project store under ENGRAM_HOME, passed on from the
environment), opens both sessions, lets each remember one fact at the same
moment, then has each recall the other's fact by its words and expand it.

Prints one JSON summary ({"a": id, "b": id}) on stdout and exits 0, or
prints what failed on stderr and exits 1.
"""

import asyncio
import json
import os
import sys
from contextlib import AsyncExitStack

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import get_default_environment, stdio_client

FACTS = {
    "a": ("The billing service deploys from the marigold pipeline every Wednesday.",
          "marigold pipeline billing"),
    "b": ("Incident reviews are written in the walnut notebook within two days.",
          "walnut notebook incident reviews"),
}
SESSION_TIMEOUT_S = 120


class Failure(Exception):
    """A check that did not hold."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def text_of(result):
    return "\n".join(getattr(c, "text", "") for c in result.content)


def is_error(result):
    return getattr(result, "is_error", getattr(result, "isError", False))


async def call(session, name, arguments):
    result = await session.call_tool(name, arguments)
    text = text_of(result)
    check(not is_error(result), f"{name}({arguments}) failed: {text}")
    return text


async def run(binary, project):
    env = get_default_environment()
    for name in ("ENGRAM_HOME", "ENGRAM_DAEMON_IDLE"):
        if name in os.environ:
            env[name] = os.environ[name]
    params = StdioServerParameters(command=binary, args=["mcp"], env=env, cwd=project)
    async with AsyncExitStack() as stack:
        sessions = {}
        for name in FACTS:
            read, write = await stack.enter_async_context(stdio_client(params))
            session = await stack.enter_async_context(ClientSession(read, write))
            await session.initialize()
            sessions[name] = session

        async def remember(name):
            text = await call(sessions[name], "memory_remember", {"content": FACTS[name][0]})
            receipt = json.loads(text)
            check(receipt.get("outcome") == "new", f"session {name} remember: {receipt}")
            check(receipt.get("scope") == "project", f"session {name} saved to {receipt}")
            return receipt["id"]

        ids = dict(zip(FACTS, await asyncio.gather(*(remember(n) for n in FACTS))))
        check(ids["a"] != ids["b"], f"both sessions got one id: {ids}")
        for me, other in (("a", "b"), ("b", "a")):
            found = await call(sessions[me], "memory_recall", {"query": FACTS[other][1]})
            check(FACTS[other][0] in found, f"session {me} does not see {other}'s memory: {found}")
            check(f"memory {ids[other]} " in found, f"session {me}'s recall lacks {ids[other]}: {found}")
            expanded = await call(sessions[me], "memory_expand", {"id": ids[other]})
            check(FACTS[other][0] in expanded, f"session {me} expanding {ids[other]}: {expanded}")
        return ids


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: mcp_two_sessions.py ENGRAM_BINARY PROJECT_DIR")
    try:
        ids = asyncio.run(asyncio.wait_for(run(sys.argv[1], sys.argv[2]), SESSION_TIMEOUT_S))
        print(json.dumps(ids))
    except Failure as e:
        print(f"mcp_two_sessions: {e}", file=sys.stderr)
        sys.exit(1)
