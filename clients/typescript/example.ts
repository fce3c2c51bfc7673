// example.ts: remember, recall, expand and forget through `engram serve`.
// Build and run (TypeScript 5, Node.js 18+):
//   tsc --strict --target es2022 --module nodenext --outDir out engram.ts example.ts
//   node out/example.js http://127.0.0.1:7373
// Meant for a scratch store: it exits non-zero when anything is not as expected.
import { Engram } from "./engram.js";

declare const process: { argv: string[]; exit(code: number): never };

function check(ok: boolean, what: unknown): asserts ok {
  if (!ok) {
    console.error("example failed:", JSON.stringify(what));
    process.exit(1);
  }
}

const engram = new Engram({ url: process.argv[2] ?? "http://127.0.0.1:7373" });
const text = "The user prefers Python to Node.js for data analysis";
const saved = await engram.remember({ content: text, tags: ["tooling"] });
const id = saved.id;
check(saved.outcome === "new" && id !== null, saved);
console.log(`remembered ${id} (${saved.outcome})`);
const { hits } = await engram.recall({ query: "which language for data analysis" });
const top = hits[0];
check(top !== undefined && top.id === id, hits);
console.log(`recalled ${top.id}: ${top.text}`);
const source = await engram.expand(id);
check(source.verified && source.events.at(-1)?.content === text, source);
console.log(`expanded ${id}: verified, ${source.events.length} turn`);
const gone = await engram.forget(id, { reason: "example" });
check(!gone.already, gone);
const after = await engram.recall({ query: "data analysis" });
check(after.hits.every((hit) => hit.id !== id), after.hits);
console.log(`forgot ${id}`);
