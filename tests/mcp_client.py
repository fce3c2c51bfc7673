#!/usr/bin/env python3
"""Drives `engram mcp` with a client that is not ours: the official MCP
Python SDK (`mcp` on PyPI; .ci/run pins the version in a virtual
environment).

Usage: mcp_client.py ENGRAM_BINARY STORE_DIR

Starts `ENGRAM_BINARY --store STORE_DIR mcp` over stdio (ENGRAM_HOME is
passed on when set), then checks: the server calls itself `engram`; every
tool is listed with a description, a title, its annotations (read-only,
destructive, idempotent, open world: each as it truly applies) and an
object input schema; remember, recall, expand, forget, recall (gone),
review, engram_save and engram_search (with tags, room, limit and min_score) answer as
documented; memory_list pages and filters, memory_update supersedes a
memory (and refuses a forgotten one), memory_verdicts lists a
contradiction that memory_verdict then resolves, memory_entities looks an
entity up, and memory_ingest records a transcript given as text (again:
nothing added) or by its path, and refuses a path that does not exist; an unknown tool, an argument of the
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
import tempfile

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
    "memory_list",
    "memory_update",
    "memory_verdicts",
    "memory_verdict",
    "memory_entities",
    "memory_ingest",
]
# (readOnlyHint, destructiveHint, idempotentHint) of each tool; openWorldHint
# is false for every one (a memory store is a closed world).
ANNOTATIONS = {
    "memory_remember": (False, False, False),
    "memory_recall": (True, False, True),
    "memory_expand": (True, False, True),
    "memory_forget": (False, True, True),
    "memory_review": (True, False, True),
    "memory_grade": (False, False, False),
    "memory_confirm": (False, False, False),
    "memory_stats": (True, False, True),
    "memory_palace": (True, False, True),
    "memory_l0": (True, False, True),
    "engram_save": (False, False, False),
    "engram_search": (True, False, True),
    "engram_review": (True, False, True),
    "memory_list": (True, False, True),
    "memory_update": (False, True, False),
    "memory_verdicts": (True, False, True),
    "memory_verdict": (False, True, True),
    "memory_entities": (True, False, True),
    "memory_ingest": (False, False, True),
}
UPDATED = "The staging cluster is named heron and moved to the Dublin region."
PREFERS_A = "The team prefers Postgres over MySQL for new services."
PREFERS_B = "The team prefers MySQL over Postgres for new services."
TRANSCRIPT = "\n".join(
    json.dumps(line)
    for line in [
        {"role": "user", "content": "Our on-call rotation hands over every Monday at ten."},
        {"role": "assistant", "content": "Noted: on-call hands over on Mondays at ten."},
    ]
)
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
        check(bool((tool.title or "").strip()), f"{name} has no title")
        notes = tool.annotations
        check(notes is not None, f"{name} has no annotations")
        hints = (
            field(notes, "read_only_hint", "readOnlyHint"),
            field(notes, "destructive_hint", "destructiveHint"),
            field(notes, "idempotent_hint", "idempotentHint"),
        )
        check(hints == ANNOTATIONS[name], f"{name} annotations {hints}, not {ANNOTATIONS[name]}")
        check(
            field(notes, "open_world_hint", "openWorldHint") is False,
            f"{name} claims an open world",
        )
        check(notes.title == tool.title, f"{name}: annotation title {notes.title!r}")
    summary["tools"] = sorted(by_name)
    summary["titles"] = {name: by_name[name].title for name in TOOLS}

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

    # engram_save and engram_search with tags, room and limit.
    tagged = await client.call_json(
        "engram_save",
        {
            "items": [
                {"content": "The canary deploy waits fifteen minutes before promotion."},
                {"content": "Rollbacks page the duty captain on call.", "tags": ["pager"]},
            ],
            "room": "deploys",
            "tags": ["ops"],
        },
    )
    ids = [r.get("id") for r in tagged.get("results") or []]
    check(len(ids) == 2 and all(ids), f"engram_save with tags and room: {tagged}")
    found = await client.call(
        "engram_search", {"query": "canary deploy rollbacks", "tags": ["pager"], "limit": 1}
    )
    check(f"memory {ids[1]} " in found, f"engram_search tags: {found}")
    check(f"memory {ids[0]} " not in found, f"engram_search ignored tags: {found}")
    floored = await client.call(
        "engram_search", {"query": "canary deploy rollbacks", "min_score": 1000}
    )
    check(
        f"memory {ids[0]} " not in floored and f"memory {ids[1]} " not in floored,
        f"engram_search ignored min_score: {floored}",
    )

    # memory_list: newest first, filtered, paged.
    listed = await client.call("memory_list", {"tag": "ops"})
    check(CONTEXT_TAG in listed, f"memory_list is not a data block: {listed}")
    check(
        listed.index(f'"id":"{ids[1]}"') < listed.index(f'"id":"{ids[0]}"'),
        f"memory_list is not newest first: {listed}",
    )
    page = await client.call("memory_list", {"room": "deploys", "limit": 1})
    check(f'"id":"{ids[1]}"' in page and f'"id":"{ids[0]}"' not in page, f"page 1: {page}")
    check(f'"next":"' in page, f"page 1 has no next: {page}")
    cursor = page.split('"next":"', 1)[1].split('"', 1)[0]
    page = await client.call("memory_list", {"room": "deploys", "limit": 1, "cursor": cursor})
    check(f'"id":"{ids[0]}"' in page and '"next":null' in page, f"page 2: {page}")

    # memory_update: a new memory supersedes the old one.
    updated = await client.call_json(
        "memory_update",
        {"id": summary["saved"], "content": UPDATED, "reason": "the cluster moved"},
    )
    check(updated.get("supersedes") == summary["saved"], f"memory_update: {updated}")
    check(updated.get("id") not in (None, summary["saved"]), f"memory_update: {updated}")
    summary["updated"] = updated["id"]
    found = await client.call("engram_search", {"query": "staging cluster heron region"})
    check(UPDATED in found and SAVED not in found, f"search after update: {found}")
    superseded = await client.call("memory_list", {"status": "superseded"})
    check(f'"id":"{summary["saved"]}"' in superseded, f"superseded list: {superseded}")
    summary["update_forgotten"] = await client.refused(
        "memory_update", {"id": memory, "content": "The release train leaves on Wednesdays."}
    )
    check(
        "forgotten" in summary["update_forgotten"],
        f"updating a forgotten memory: {summary['update_forgotten']}",
    )

    # memory_verdicts and memory_verdict: a contradiction, listed, resolved.
    first = await client.call_json("memory_remember", {"content": PREFERS_A})
    second = await client.call_json("memory_remember", {"content": PREFERS_B})
    check(second.get("outcome") == "contradiction", f"no contradiction: {second}")
    open_ = await client.call("memory_verdicts", {})
    check(CONTEXT_TAG in open_, f"memory_verdicts is not a data block: {open_}")
    check(first["id"] in open_ and second["id"] in open_, f"memory_verdicts: {open_}")
    verdict = await client.call_json(
        "memory_verdict",
        {"a": second["id"], "b": first["id"], "verdict": "keep-a", "reason": "decided"},
    )
    check(verdict.get("verdict") == "keep-a" and verdict.get("seq"), f"memory_verdict: {verdict}")
    open_ = await client.call("memory_verdicts", {})
    check('"open":[]' in open_, f"the contradiction is still open: {open_}")

    # memory_entities: look an entity up.
    entities = await client.call("memory_entities", {"search": "mysql"})
    check(CONTEXT_TAG in entities and "mysql" in entities, f"memory_entities: {entities}")
    check(second["id"] in entities, f"memory_entities lacks the memory: {entities}")
    entities = await client.call("memory_entities", {"category": "place", "search": "mysql"})
    check('"entities":[]' in entities, f"memory_entities category filter: {entities}")

    # memory_ingest: text in, again nothing added; a missing path refused.
    ingested = await client.call(
        "memory_ingest", {"transcript": TRANSCRIPT, "session": "standup"}
    )
    check('"new_turns":2' in ingested, f"memory_ingest: {ingested}")
    again = await client.call("memory_ingest", {"transcript": TRANSCRIPT, "session": "standup"})
    check('"new_turns":0' in again, f"memory_ingest again: {again}")
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "retro.jsonl")
        with open(path, "w", encoding="utf-8") as f:
            f.write(TRANSCRIPT + "\n")
        by_path = await client.call("memory_ingest", {"path": path, "session": "retro"})
        check('"new_turns":2' in by_path, f"memory_ingest by path: {by_path}")
    summary["ingest_missing"] = await client.refused(
        "memory_ingest", {"path": "/nonexistent/transcript.jsonl"}
    )
    check("reading" in summary["ingest_missing"], f"missing path: {summary['ingest_missing']}")

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
