// engram.ts: a client of engram's HTTP API (`engram serve`), one file, no
// dependencies. It runs wherever `fetch` does: Node.js 18+, Deno, Bun and
// browsers. The types are the JSON the server answers (docs/http.md in the
// engram repository; the CLI's `--json` shapes).
//
//   import { Engram } from "./engram";
//   const engram = new Engram({ url: "http://127.0.0.1:7373" });
//   const saved = await engram.remember({ content: "Deploys freeze on Fridays", tags: ["deploy"] });
//   const { hits, context } = await engram.recall({ query: "deploy freeze" });
//
// Memory ids name their store (`u:2` the user store's, `p:2` a project
// store's, `s:2` a `--store` folder's): pass them back as they came. An
// error answer throws an `EngramError` carrying the server's stable code.

/** A memory id, qualified by its store: `u:2`, `p:2`, `s:2`. */
export type MemoryId = string;
/** Who acts: the user (default) or a model (the gates keep a model from overruling the user). */
export type By = "user" | "model";
export type Tier = "l1" | "l2" | "l3" | "l4";
/** The four outcomes of a save. */
export type Outcome = "new" | "reinforced" | "contradiction" | "discarded";
/** The store a memory lives in: `user`, `project`, or `store` for a `--store` folder. */
export type Scope = "user" | "project" | "store";
export type MemoryStatus = "live" | "superseded" | "archived" | "forgotten";
export type Source = "user" | "model" | "ingest" | "document";
export type VerdictName = "keep-a" | "keep-b" | "keep-both" | "shelve";
/** The stable error codes (`EngramError.code`). */
export type ErrorCode =
  | "bad_request"
  | "invalid_json"
  | "ambiguous_id"
  | "unauthorized"
  | "denied"
  | "not_found"
  | "no_store"
  | "method_not_allowed"
  | "discarded"
  | "tampered"
  | "forgotten"
  | "payload_too_large"
  | "unsupported_media_type"
  | "internal"
  | (string & {});

export interface Health {
  ok: boolean;
  name: "engram";
  version: string;
}

export interface RememberRequest {
  /** The words to remember; omit to remember recorded turns (`session`, `first_seq`, `last_seq`). */
  content?: string;
  room?: string;
  tags?: string[];
  summary?: string;
  session?: string;
  first_seq?: number;
  last_seq?: number;
  session_only?: boolean;
  tier?: "l1" | "l2" | "l3";
  by?: By;
  /** Time to live, such as `30d` or `12h`. */
  ttl?: string;
}

/** What a save answers. */
export interface Receipt {
  /** The memory the save ended in; `null` when discarded. */
  id: MemoryId | null;
  /** Palace coordinate `room#slot`. */
  coordinate: string | null;
  outcome: Outcome;
  /** The existing memory a reinforcement or contradiction concerns. */
  related: MemoryId | null;
  reason: string | null;
  /** 0..1. */
  uniqueness: number;
  scope: Scope;
  session: string | null;
  first_seq: number | null;
  last_seq: number | null;
}

export interface BatchItem {
  content: string;
  room?: string;
  tags?: string[];
  summary?: string;
}

export interface BatchRequest {
  items: BatchItem[];
  session?: string;
  room?: string;
  by?: By;
  scope?: "user" | "project";
}

export type BatchResult =
  | (Receipt & { index: number })
  | { index: number; outcome: "error"; error: ErrorCode; message: string };

export interface RecallRequest {
  query: string;
  /** Search this room's corridor first, then everywhere. */
  room?: string;
  /** Only this tier (`l4` searches archived memories). */
  tier?: Tier;
  /** Only memories carrying every one of these tags. */
  tags?: string[];
  /** The caller's session: its session-only memories are included. */
  session?: string;
  /** 1-100, default 5. */
  limit?: number;
}

/** An adjacent slot of a hit's room. */
export interface Cue {
  id: MemoryId;
  coordinate: string;
  label: string;
}

export interface Hit {
  id: MemoryId;
  coordinate: string;
  /** Keyword mode: the BM25 score; hybrid mode: the fused score in 0..1. */
  score: number;
  text: string;
  /** The words of the latest turns (up to 3) that restated the memory and
   * said something its own words do not. */
  restated: string[];
  /** 0..1. */
  trust: number;
  status: "relevant";
  scope: Scope;
  tier: Tier;
  room: string | null;
  tags: string[];
  summary: string | null;
  cues: Cue[];
}

export interface Recall {
  hits: Hit[];
  mode: "keyword" | "hybrid";
  /** The `<engram_memory_context>` block to hand a model. */
  context: string;
  /** Stores that could not be searched (another process writing them), and why. */
  skipped?: string[];
}

export interface Memory {
  id: MemoryId;
  scope: Scope;
  coordinate: string | null;
  status: MemoryStatus;
  tier: Tier;
  room: string | null;
  tags: string[];
  summary: string | null;
  label: string;
  trust: number;
  source: Source;
  session: string;
  first_seq: number;
  last_seq: number;
  /** RFC 3339. */
  created: string;
  reinforcements: number;
  expires: string | null;
}

export interface ListQuery {
  /** Only memories filed in this room (or a room of its corridor). */
  room?: string;
  tag?: string;
  tier?: Tier;
  /** Default: all but forgotten. */
  status?: MemoryStatus;
  /** Created at or after (RFC 3339, or `-7d`). */
  since?: string;
  /** 1-500, default 20. */
  limit?: number;
  /** The `next` of the page before. */
  cursor?: string;
}

/** A memory in a list; `text` is `null` for a forgotten one, and `text`, `summary`, `tags` and `room` are left out (`verified: false`) for one whose view entries fail their MAC. */
export interface Listed {
  id: MemoryId;
  scope: Scope;
  status: MemoryStatus;
  tier: Tier;
  coordinate: string | null;
  room?: string | null;
  tags?: string[];
  summary?: string | null;
  label: string;
  text?: string | null;
  verified: boolean;
  source: Source;
  trust: number;
  created: string;
}

export interface Memories {
  memories: Listed[];
  /** The cursor of the next page; `null` on the last. */
  next: string | null;
  skipped?: string[];
}

export interface UpdateRequest {
  content: string;
  reason?: string;
  by?: By;
  session?: string;
  summary?: string;
  tags?: string[];
  room?: string;
}

/** The new memory's receipt, the id it supersedes and the verdict's seq. */
export interface Update extends Receipt {
  supersedes: MemoryId;
  verdict_seq: number;
}

/** One session turn a memory references. */
export interface Turn {
  seq: number;
  ts: string;
  session: string;
  turn: number;
  role: string;
  content: string;
}

export interface Expansion {
  id: MemoryId;
  events: Turn[];
  /** The content hash and HMAC were checked. */
  verified: boolean;
  status: MemoryStatus;
}

export interface ExpandOptions {
  /** Forgotten memories too (users only). */
  audit?: boolean;
  session?: string;
}

export interface AuditRecord {
  seq: number;
  ts: string;
  ts_ms: number;
  kind: string;
  subject: string;
  result: string;
}

export interface Audit {
  id: MemoryId;
  history: AuditRecord[];
}

export interface ForgetRequest {
  reason?: string;
  by?: By;
  session?: string;
}

export interface Forgetting {
  id: MemoryId;
  seq: number;
  /** It was forgotten before. */
  already: boolean;
}

export interface Confirmation {
  id: MemoryId;
  seq: number;
  /** The quote occurs in the verified source. */
  valid: boolean;
  trust: number;
}

export interface Schedule {
  id: MemoryId;
  grade: number;
  due: string;
  interval_days: number;
  repetitions: number;
  easiness: number;
}

export interface Review {
  due: { id: MemoryId; coordinate: string; due: string; cues: { coordinate: string; label: string }[] }[];
}

export interface Contradiction {
  a: MemoryId;
  b: MemoryId;
  reason: string;
  a_label: string;
  b_label: string;
}

export interface Verdicts {
  open: Contradiction[];
  shelved: Contradiction[];
}

export interface VerdictRequest {
  a: MemoryId;
  b: MemoryId;
  verdict: VerdictName;
  by?: By;
  reason?: string;
}

export interface Verdict {
  a: MemoryId;
  b: MemoryId;
  verdict: VerdictName;
  seq: number;
}

export interface Labelled {
  id: MemoryId;
  coordinate: string;
  label: string;
}

export interface Entities {
  entities: { category: string; name: string; memories: Labelled[] }[];
}

export interface Room {
  room: string;
  corridor: string;
  fill: number;
  capacity: number;
  topic: string;
  tour: { slot: number; id: MemoryId; coordinate: string; label: string; status: string }[];
}

export interface Palace {
  rooms: Room[];
}

export interface LogQuery {
  from?: number;
  to?: number;
  kind?: string;
  session?: string;
  memory?: MemoryId;
  since?: string;
  until?: string;
  limit?: number;
}

/** One event, as `engram log --json` prints it: these fields plus the event's own. */
export interface LogEvent {
  seq: number;
  ts: string;
  ts_ms: number;
  kind: string;
  [field: string]: unknown;
}

export interface Log {
  events: LogEvent[];
  last_seq: number;
  scope: Scope;
}

export interface IngestRequest {
  /** JSON lines: `{role, content}` each, or a Claude Code session file. */
  transcript: string;
  session?: string;
  skip_bad_lines?: boolean;
  /** Also save the memories proposed from the user's turns. */
  extract?: boolean;
}

export interface Ingested {
  session: string;
  first_seq: number;
  last_seq: number;
  turns: number;
  new_turns: number;
  held_turns: number;
  redacted: number;
  /** With `extract`: each proposed memory and what its save ended in. */
  extracted: { seq: number; sentence: string; outcome: Outcome; id: MemoryId | null }[];
  skipped: { line: number | null; reason: string }[];
}

export interface VerifyReport {
  ok: boolean;
  last_seq: number;
  n_events: number;
  n_frames: number;
  n_segments: number;
  bytes: number;
  /** A torn tail left by a crash (a warning: the next write open truncates it). */
  torn_tail: { segment: string; offset: number; bytes: number; reason: string } | null;
  /** The first damage found, naming its seq. */
  problem: { seq: number; segment: string; offset: number; reason: string } | null;
}

export interface ViewStats {
  name: string;
  version: number;
  applied: number;
  lag: number;
  failure: string | null;
}

export interface Stats {
  as_of: number | null;
  n_events: number;
  last_seq: number;
  views: ViewStats[];
  memories_by_status: Record<MemoryStatus, number>;
  memories_by_tier: Record<Tier, number>;
  due_reviews_today: number;
  open_contradictions: number;
  health: { score: number; uniqueness: number; consistency: number; review_success: number; trust: number };
  mode: "keyword" | "hybrid";
  model: string | null;
}

/** An error answer: `code` is stable (`not_found`, `forgotten`, `denied`, ...), `message` says what to do. */
export class EngramError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string, status: number) {
    super(`${code}: ${message}`);
    this.name = "EngramError";
    this.code = code;
    this.status = status;
  }
}

export interface EngramOptions {
  /** Where `engram serve` listens; default `http://127.0.0.1:7373`. */
  url?: string;
  /** The bearer token of a server bound beyond loopback (`ENGRAM_TOKEN`). */
  token?: string;
  /** Another `fetch` (a test double, or one with a custom agent). */
  fetch?: typeof fetch;
}

const encodeId = (id: MemoryId | number): string => encodeURIComponent(String(id)).replace(/%3A/gi, ":");

function query(params: object): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) search.set(name, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** A client of one `engram serve`. Every method is one request. */
export class Engram {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly fetcher: typeof fetch;

  constructor(options: EngramOptions = {}) {
    this.url = (options.url ?? "http://127.0.0.1:7373").replace(/\/+$/, "");
    this.token = options.token;
    this.fetcher = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** One request to `path` (such as `/api/stats`); the answer's JSON, or an `EngramError`. */
  async request<T>(method: "GET" | "POST", path: string, body?: object): Promise<T> {
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload: string | null = null;
    if (method === "POST") {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body ?? {});
    }
    const response = await this.fetcher(this.url + path, { method, headers, body: payload });
    const text = await response.text();
    let answer: unknown;
    try {
      answer = text ? JSON.parse(text) : {};
    } catch {
      throw new EngramError("internal", `the answer (${response.status}) is not JSON: ${text.slice(0, 200)}`, response.status);
    }
    if (!response.ok) {
      const error = answer as { error?: unknown; message?: unknown };
      const code = typeof error.error === "string" ? error.error : "internal";
      const message = typeof error.message === "string" ? error.message : text;
      throw new EngramError(code, message, response.status);
    }
    return answer as T;
  }

  health(): Promise<Health> {
    return this.request("GET", "/api/health");
  }

  stats(): Promise<Stats> {
    return this.request("GET", "/api/stats");
  }

  /** Saves a memory; a discarded save throws `EngramError` with code `discarded`. */
  remember(request: RememberRequest): Promise<Receipt> {
    return this.request("POST", "/api/remember", request);
  }

  /** One atomic append; an item with bad input fails alone. */
  rememberBatch(request: BatchRequest): Promise<{ results: BatchResult[] }> {
    return this.request("POST", "/api/remember/batch", request);
  }

  recall(request: RecallRequest): Promise<Recall> {
    return this.request("POST", "/api/recall", request);
  }

  /** One page, newest first; pass `next` back as `cursor`. */
  memories(filters: ListQuery = {}): Promise<Memories> {
    return this.request("GET", `/api/memories${query(filters)}`);
  }

  memory(id: MemoryId): Promise<Memory> {
    return this.request("GET", `/api/memories/${encodeId(id)}`);
  }

  /** New words as a supersession: the new memory and a verdict retiring the old one, in one append. */
  update(id: MemoryId, request: UpdateRequest): Promise<Update> {
    return this.request("POST", `/api/memories/${encodeId(id)}/update`, request);
  }

  /** The memory's source turns, verified (content hash and HMAC). */
  expand(id: MemoryId, options: ExpandOptions = {}): Promise<Expansion> {
    return this.request("GET", `/api/memories/${encodeId(id)}/expand${query(options)}`);
  }

  audit(id: MemoryId): Promise<Audit> {
    return this.request("GET", `/api/memories/${encodeId(id)}/audit`);
  }

  forget(id: MemoryId, request: ForgetRequest = {}): Promise<Forgetting> {
    return this.request("POST", `/api/memories/${encodeId(id)}/forget`, request);
  }

  confirm(id: MemoryId, quote: string, options: { by?: By; session?: string } = {}): Promise<Confirmation> {
    return this.request("POST", `/api/memories/${encodeId(id)}/confirm`, { quote, ...options });
  }

  /** SM-2: a grade 0-5 advances the review schedule. */
  grade(id: MemoryId, grade: number, options: { by?: By } = {}): Promise<Schedule> {
    return this.request("POST", `/api/memories/${encodeId(id)}/grade`, { grade, ...options });
  }

  review(options: { at?: string } = {}): Promise<Review> {
    return this.request("GET", `/api/review${query(options)}`);
  }

  verdicts(): Promise<Verdicts> {
    return this.request("GET", "/api/verdicts");
  }

  verdict(request: VerdictRequest): Promise<Verdict> {
    return this.request("POST", "/api/verdict", request);
  }

  entities(options: { category?: string; search?: string } = {}): Promise<Entities> {
    return this.request("GET", `/api/entities${query(options)}`);
  }

  palace(): Promise<Palace> {
    return this.request("GET", "/api/palace");
  }

  room(room: string): Promise<Room> {
    return this.request("GET", `/api/palace/${encodeURIComponent(room)}`);
  }

  log(filters: LogQuery = {}): Promise<Log> {
    return this.request("GET", `/api/log${query(filters)}`);
  }

  /** Records a transcript as one session's turns; the same transcript twice adds nothing. */
  ingest(request: IngestRequest): Promise<Ingested> {
    return this.request("POST", "/api/ingest", request);
  }

  /** Walks the whole log: frames, hash chain, every HMAC. */
  verify(): Promise<VerifyReport> {
    return this.request("POST", "/api/verify");
  }
}
