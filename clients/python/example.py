"""Remember, recall, expand and forget through a running engram owner.
Usage: python example.py [STORE_DIR | http://HOST:PORT]  (default: ~/.engram's user store)"""
import sys

import engram_client


def check(ok: bool, what: object) -> None:
    if not ok:
        sys.exit(f"example failed: {what}")


engram = engram_client.connect(sys.argv[1] if len(sys.argv) > 1 else None)
text = "The user prefers Python to Node.js for data analysis"
saved = engram.remember(text, tags=["tooling"])
check(saved["outcome"] == "new", f"expected a new memory (use a scratch store): {saved}")
print(f"remembered {saved['id']} ({saved['outcome']})")
hits = engram.recall("which language for data analysis")["hits"]
check(bool(hits) and hits[0]["id"] == saved["id"], hits)
print(f"recalled {hits[0]['id']}: {hits[0]['text']}")
source = engram.expand(saved["id"])
check(source["verified"] is True and source["events"][-1]["content"] == text, source)
print(f"expanded {saved['id']}: verified, {len(source['events'])} turn")
gone = engram.forget(saved["id"], reason="example")
check(gone["already"] is False, gone)
check(all(h["id"] != saved["id"] for h in engram.recall("data analysis")["hits"]), "still recalled")
print(f"forgot {saved['id']}")
