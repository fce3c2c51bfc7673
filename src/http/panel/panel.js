/* engram admin panel: plain JS, no build step, served by `engram serve` at `/`
 * next to index.html and panel.css; talks to the JSON API under `api/`
 * (docs/http.md). All stored text goes into the page as text (textContent),
 * never as markup.
 *
 * Routes (location.hash): #/today  #/search?q=&min_score=&limit=
 *   #/memories?room=&tag=&tier=&status=&since=  #/charts?bucket=
 *   #/entities?category=&search=  #/verdicts
 *   #/logs?memory=&session=&kind=&since=&until=&limit=  #/palace  #/palace/ROOM
 *   #/memory/ID (a memory's header and history timeline)  #/maintain  #/data.
 * A memory id names its store (`p:2`, `u:2`, `s:2`); it is URL-encoded
 * wherever it goes into a path or a query (mem() below).
 *   A `token=...` parameter anywhere in the hash (#token=abc, #/today&token=abc)
 *   is kept in sessionStorage ("engram.token"), stripped from the URL and sent
 *   as `Authorization: Bearer` on every API call.
 *
 * Test hooks (data-testid unless said otherwise):
 *   Readiness: body[data-ready="today|search|memories|charts|entities|verdicts|
 *     logs|palace|memory|maintain|data|missing"]
 *     is set when a view, or an action with the refresh it causes, has
 *     finished (also when it failed: the error notice says why); it is removed
 *     synchronously when a load or action starts. body[data-busy="1"] while
 *     any API request is in flight.
 *   tab-today, tab-search, tab-memories, tab-charts, tab-entities,
 *     tab-verdicts, tab-logs, tab-palace, tab-maintain, tab-data: nav links
 *     (the current one has aria-current="page").
 *   error (role="alert", exists only while shown) with error-message and
 *     error-dismiss; info (role="status", info-message) for confirmations;
 *     an action clears both; token-form, token-input,
 *     token-submit, shown on a 401.
 *   Today: health-score (the 0-100 number), health, due-today,
 *     open-contradictions; review-list;
 *     review-item[data-id][data-state="due|graded"] holding grade-0 .. grade-5,
 *     and after grading next-due, reveal (button), revealed (the words);
 *     activity (table).
 *   Entities: entity-category (select), entity-search (input),
 *     entity[data-category][data-name] holding entity-memory links.
 *   Verdicts: verdicts-open, verdicts-shelved; open rows verdict[data-a][data-b],
 *     shelved rows shelved-verdict[data-a][data-b]; inside a row verdict-reason
 *     (input), verdict-keep-a, verdict-keep-b, verdict-keep-both, verdict-shelve
 *     (open rows only). A decided row disappears when the list refreshes.
 *   Logs: log-form with log-memory, log-session, log-kind, log-since,
 *     log-until, log-limit, log-apply; log-table with log-row[data-seq][data-kind].
 *   Memory: memory-header[data-id][data-status], expand (button), revealed,
 *     timeline with timeline-event[data-seq][data-kind].
 *   Palace: corridor[data-corridor][data-inside][data-placed-by] (a section
 *     holding the rooms on the corridor, then the corridors inside it, each
 *     a corridor section too), room[data-room] (links); corridor-form with
 *     corridor-name, corridor-kind (select: "", room, corridor),
 *     corridor-into, corridor-submit; tour[data-room] with
 *     tour-stop[data-slot][data-id][data-status] and tour-empty slots.
 *   Search: search-form with search-query, search-min-score, search-limit,
 *     search-submit; search-count; search-hits with search-hit[data-id]
 *     [data-status][data-reference-only]; search-context (the context block).
 *   Memories: add-form with add-text, add-tags, add-room, add-submit;
 *     memories-form with mem-room, mem-tag, mem-tier, mem-status, mem-since,
 *     memories-apply; memories-goto, memories-goto-submit; memories-count;
 *     memories-list with memory-row[data-id][data-status] holding memory-link,
 *     memory-expand, memory-forget; forget asks first: forget-confirm-form
 *     with forget-reason, forget-confirm, forget-cancel; memories-more pages.
 *   Charts: chart-bucket (select), charts-caption; chart[data-series=
 *     "live|recalls|hit_rate|health"][data-points] holding an SVG with one
 *     chart-point[data-start][data-value] per bucket (hit_rate: per bucket
 *     with recalls).
 *   Maintain: maintain-at, maintain-dry-run, maintain-apply (enabled by a dry
 *     run), maintain-result with maintain-summary[data-dry-run],
 *     maintain-archive[data-id], maintain-rescore[data-id];
 *     distill-cluster[data-members] with distill-rule, distill-dry-run,
 *     distill-apply (enabled by a dry run of the same rule), distill-plan;
 *     renovation-item[data-id].
 *   Data: ingest-form with ingest-file, ingest-session, ingest-skip-bad,
 *     ingest-extract, ingest-submit; ingest-result with ingest-summary
 *     [data-session][data-new-turns], ingest-extracted, ingest-skipped;
 *     export-link (no token) or export-download (with a token).
 *   Rows of both event tables (activity, log-table) are log-row. Empty states:
 *     review-empty, activity-empty, entities-empty, verdicts-empty,
 *     shelved-empty, log-empty, timeline-empty, memory-missing, palace-empty,
 *     tour-hint, search-empty, memories-empty, charts-empty, maintain-nothing,
 *     distill-empty, renovation-empty.
 */
'use strict';

const TOKEN_KEY = 'engram.token';
const CATEGORIES = ['person', 'project', 'tool', 'file', 'organisation', 'place'];
const KINDS = ['session', 'remembered', 'reinforced', 'contradiction_flagged', 'verdict_recorded',
  'distilled', 'tier_changed', 'archived', 'forgotten', 'graded', 'recalled', 'expanded',
  'evidence_confirmed', 'evidence_noted', 'entity_linked', 'gate_denied', 'discarded',
  'checkpoint', 'ttl_set', 'embedded'];
const GRADES = [
  [0, 'blackout', 'No recall at all'],
  [1, 'wrong', 'Wrong; the right answer rang a bell once seen'],
  [2, 'almost', 'Wrong, but it seemed easy once seen'],
  [3, 'hard', 'Right, with serious effort'],
  [4, 'good', 'Right, after some hesitation'],
  [5, 'perfect', 'Right, instantly'],
];
const VERDICTS = {
  'keep-a': 'keep A', 'keep-b': 'keep B', 'keep-both': 'keep both', shelve: 'shelve',
};
// Log fields that name a memory id, and fields too bulky to show.
const MEMORY_FIELDS = new Set(['memory', 'other', 'a', 'b']);
const HIDDEN_FIELDS = new Set(['seq', 'ts', 'ts_ms', 'kind', 'content_sha256', 'mac', 'chain_hash']);
// Fields holding a memory's words: left out of Today's activity so it cannot give away a review.
const WORD_FIELDS = new Set(['content', 'summary', 'rule', 'quote', 'note']);

const state = { token: sessionStorage.getItem(TOKEN_KEY) || '', view: null, requests: 0 };

/* ---------- DOM helpers ---------- */

const $ = (sel, root = document) => root.querySelector(sel);

/** Builds an element; attributes `on*` become listeners; children are nodes or text. */
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);
const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
/** A memory id as a URL path segment or query value. */
const mem = (id) => encodeURIComponent(String(id));
/** The id of memory `seq` of the store a log answer names (its `scope`). */
const LETTERS = { user: 'u', project: 'p', store: 's' };
const idIn = (scope, seq) => `${LETTERS[scope] || 's'}:${seq}`;
const memLink = (id, text) => h('a', { href: `#/memory/${mem(id)}`, class: 'mem' }, text || `memory ${id}`);
const badge = (text, kind) => h('span', { class: `badge ${kind || ''}` }, text);
const empty = (text, testid) => h('p', { class: 'empty', 'data-testid': testid }, text);
const interleave = (nodes, sep) => nodes.flatMap((n, i) => (i ? [sep, n] : [n]));

const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
function relative(date) {
  const seconds = (date.getTime() - Date.now()) / 1000;
  for (const [unit, size] of [['day', 86400], ['hour', 3600], ['minute', 60]]) {
    if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  }
  return rtf.format(Math.round(seconds), 'second');
}

/** A <time> for an RFC 3339 string or unix ms: local date and time, ISO on hover. */
function when(ts, withRelative) {
  const date = new Date(ts);
  if (Number.isNaN(date.getTime())) return h('span', {}, String(ts));
  const text = date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return h('time', { datetime: date.toISOString(), title: date.toISOString() },
    withRelative ? `${relative(date)} (${text})` : text);
}

/** datetime-local value <-> RFC 3339 UTC (whole seconds). */
const toUtc = (local) => (local ? new Date(local).toISOString().replace(/\.\d{3}Z$/, 'Z') : '');
function toLocalInput(iso) {
  const d = new Date(iso);
  if (!iso || Number.isNaN(d.getTime())) return '';
  const pad = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/* ---------- notices ---------- */

function notice(kind, message) {
  const testid = kind === 'error' ? 'error' : 'info';
  let box = $(`[data-testid="${testid}"]`);
  if (!box) {
    box = h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status', 'data-testid': testid },
      h('p', { 'data-testid': `${testid}-message` }),
      h('button', { type: 'button', class: 'dismiss', 'data-testid': `${testid}-dismiss`, 'aria-label': 'Dismiss', onclick: () => box.remove() }, '×'));
    $('#notices').append(box);
  }
  $('p', box).textContent = message;
}

function clearNotices() { $('#notices').replaceChildren(); }

function report(err) {
  if (!(err instanceof ApiError)) console.error(err);
  if (err instanceof ApiError && err.status === 401) return; // the token form says it
  notice(err instanceof ApiError && err.code === 'no_store' ? 'info' : 'error', err.message || String(err));
}

/* ---------- API ---------- */

class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** A memory an action named is gone: forgotten (410) or never there / removed (404). */
const gone = (err) => err instanceof ApiError && (err.status === 410 || (err.status === 404 && err.code === 'not_found'));
const goneWhy = (err) => (err.status === 410 ? 'was forgotten' : 'no longer exists');
const goneText = (err, who) => `${who} ${goneWhy(err)}: nothing was recorded and the list has been refreshed. The server said: ${err.message}`;

function countRequest(delta) {
  state.requests += delta;
  if (state.requests > 0) document.body.dataset.busy = '1';
  else delete document.body.dataset.busy;
}

/** Calls `api/<path>`; resolves to the JSON body, rejects with an ApiError carrying the server's message. */
async function api(path, { method = 'GET', query, body } = {}) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== '') params.set(k, v);
  const url = `api/${path}${params.toString() ? `?${params}` : ''}`;
  const headers = { Accept: 'application/json' };
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  countRequest(1);
  try {
    let res;
    try {
      res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      throw new ApiError(0, 'network', `Cannot reach the engram server (${e.message}).`);
    }
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { /* not JSON: reported below */ }
    if (!res.ok) {
      const err = new ApiError(res.status, data?.error || `http_${res.status}`,
        data?.message || (data?.error ? `${res.status} ${data.error}` : `${res.status} ${res.statusText}`));
      if (res.status === 401) askToken(err.message);
      throw err;
    }
    if (data === null) throw new ApiError(res.status, 'bad_response', `The server's answer to ${path} is not JSON.`);
    return data;
  } finally {
    countRequest(-1);
  }
}

/** Runs a load or an action: body[data-ready] is off until every running task is done. */
async function task(fn) {
  const view = state.view;
  view.tasks += 1;
  delete document.body.dataset.ready;
  try {
    await fn();
  } catch (err) {
    report(err);
  } finally {
    view.tasks -= 1;
    if (view.tasks === 0 && view === state.view) document.body.dataset.ready = view.name;
  }
}

/** An action from `buttons`: they stay disabled while it runs. */
function action(buttons, fn) {
  clearNotices(); // what they said was about an earlier step
  for (const b of buttons) b.disabled = true;
  return task(fn).finally(() => { for (const b of buttons) b.disabled = false; });
}

/** Awaits all; reports each failure instead of stopping at the first. */
async function settle(...promises) {
  for (const r of await Promise.allSettled(promises)) if (r.status === 'rejected') report(r.reason);
}

/* ---------- token ---------- */

function takeTokenFromHash() {
  const m = location.hash.match(/[#?&]token=([^&]*)/);
  if (!m) return;
  setToken(decodeURIComponent(m[1]));
  const rest = location.hash.replace(/([#?&])token=[^&]*&?/, '$1').replace(/[?&]$/, '');
  history.replaceState(null, '', rest.length > 1 ? rest : location.pathname + location.search);
}

function setToken(token) {
  state.token = token;
  sessionStorage.setItem(TOKEN_KEY, token);
}

function askToken(message) {
  const form = $('#token-form');
  $('#token-why').textContent = state.token ? `The token given was refused (${message}).` : '';
  if (form.hidden) {
    form.hidden = false;
    $('#token-input').focus();
  }
}

/* ---------- routing ---------- */

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const cut = raw.search(/[?&]/);
  const path = cut < 0 ? raw : raw.slice(0, cut);
  const [name = 'today', arg] = path.split('/').filter(Boolean).map(decodeURIComponent);
  return { name, arg, params: new URLSearchParams(cut < 0 ? '' : raw.slice(cut + 1)) };
}

const VIEWS = {
  today: ['Today', renderToday],
  search: ['Search', renderSearch],
  memories: ['Memories', renderMemories],
  charts: ['Charts', renderCharts],
  entities: ['Entities', renderEntities],
  verdicts: ['Verdicts', renderVerdicts],
  logs: ['Logs', renderLogs],
  palace: ['Palace', renderPalace],
  memory: ['Memory', renderMemory],
  maintain: ['Maintain', renderMaintain],
  data: ['Data', renderData],
};

function route() {
  takeTokenFromHash();
  const r = parseHash();
  const [title, render] = VIEWS[r.name] || ['Not found', renderMissing];
  const name = VIEWS[r.name] ? r.name : 'missing';
  for (const tab of document.querySelectorAll('[data-tab]')) {
    if (tab.dataset.tab === name) tab.setAttribute('aria-current', 'page');
    else tab.removeAttribute('aria-current');
  }
  document.title = `${title} · engram`;
  clearNotices();
  window.scrollTo(0, 0);
  const root = h('div', { class: `view view-${name}` });
  $('#view').replaceChildren(root);
  state.view = { name, tasks: 0 };
  task(() => render(root, r));
}

function renderMissing(root) {
  root.append(h('h1', {}, 'Not found'),
    h('p', {}, 'No page at this address. ', h('a', { href: '#/today' }, 'Go to Today'), '.'));
}

/* ---------- shared renderers ---------- */

/** The event's fields as short "key value" pairs, memory ids (seqs of `scope`'s store) as links; `noWords` leaves out stored text. */
function summarize(e, noWords, scope) {
  const parts = [];
  if (e.kind === 'remembered') parts.push(memLink(idIn(scope, e.seq)));
  for (const [key, value] of Object.entries(e)) {
    if (HIDDEN_FIELDS.has(key) || (noWords && WORD_FIELDS.has(key)) || value === null || value === '' || (Array.isArray(value) && !value.length)) continue;
    parts.push(h('span', { class: 'kv' }, h('span', { class: 'k' }, key.replace(/_permille$/, '').replace(/_/g, ' ')), ' ', fieldValue(key, value, scope)));
  }
  return parts;
}

function fieldValue(key, v, scope) {
  if (MEMORY_FIELDS.has(key) && typeof v === 'number') return memLink(idIn(scope, v));
  if (key === 'members' && Array.isArray(v)) return interleave(v.map((id) => memLink(idIn(scope, id))), ', ');
  if (key === 'hits' && Array.isArray(v)) {
    return interleave(v.map((x) => [memLink(idIn(scope, x.memory)), ` (${(x.score_micros / 1e6).toFixed(3)})`]), ', ');
  }
  if (key === 'reference') return `session ${v.session}, seqs ${v.first_seq}..${v.last_seq}`;
  if (key === 'embedding') return `${v.model} (${v.values ? v.values.length : '?'} dimensions)`;
  if (key === 'expires_at_ms') return when(v);
  if (key.endsWith('_permille')) return (v / 1000).toFixed(3);
  if (key === 'scope' && typeof v === 'object') return `session ${v.session}`;
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(', ');
  if (typeof v === 'string') return h('span', { class: 'text' }, clip(v, 300));
  if (typeof v === 'object') {
    const json = JSON.stringify(v, (_, x) => (x === null || (Array.isArray(x) && !x.length) ? undefined : x));
    return clip(json, 160);
  }
  return String(v);
}

/** Log events of `scope`'s store as a table, newest first. */
function eventTable(events, testid, noWords, scope) {
  return h('table', { class: 'events', 'data-testid': testid },
    h('thead', {}, h('tr', {}, h('th', {}, 'seq'), h('th', {}, 'time'), h('th', {}, 'kind'), h('th', {}, 'details'))),
    h('tbody', {}, [...events].reverse().map((e) => h('tr', { 'data-testid': 'log-row', 'data-seq': e.seq, 'data-kind': e.kind },
      h('td', { class: 'seq' }, e.seq),
      h('td', { class: 'ts' }, when(e.ts ?? e.ts_ms)),
      h('td', { class: 'kind' }, badge(e.kind, `k-${e.kind}`)),
      h('td', { class: 'details' }, summarize(e, noWords, scope))))));
}

/** A memory's original words (expand response). */
function words(x) {
  return h('div', { class: 'words', 'data-testid': 'revealed' },
    x.events.map((t) => h('figure', {},
      h('figcaption', {}, `${t.role} · session ${t.session} turn ${t.turn} · seq ${t.seq}`),
      h('p', { class: 'content' }, t.content))),
    h('p', { class: 'muted small' }, x.verified ? 'Source verified: content hash and HMAC match.' : 'Source NOT verified.'));
}

function bar(fraction, label) {
  const fill = h('span', {});
  fill.style.width = `${(Math.max(0, Math.min(1, fraction)) * 100).toFixed(1)}%`; // CSSOM: the CSP forbids style attributes
  return h('div', { class: 'bar', role: 'img', 'aria-label': label }, fill);
}

/* ---------- Today ---------- */

async function renderToday(root) {
  const health = h('section', { class: 'card health', 'data-testid': 'health', 'aria-label': 'Health' });
  const reviews = h('ol', { class: 'reviews', 'data-testid': 'review-list' });
  const activity = h('div', { class: 'activity' });
  root.append(h('div', { class: 'today' },
    h('div', { class: 'col-health' }, health),
    h('section', { class: 'col-reviews' },
      h('div', { class: 'section-head' }, h('h2', {}, 'Due reviews'),
        h('button', { type: 'button', class: 'ghost', onclick: (ev) => action([ev.currentTarget], loadReviews) }, 'Refresh')),
      h('p', { class: 'muted small' }, 'Recall what each place holds, then grade yourself. A memory’s words are shown only after grading (and are left out of the activity below).'),
      reviews),
    h('section', { class: 'col-activity' },
      h('div', { class: 'section-head' }, h('h2', {}, 'Recent activity'), h('a', { href: '#/logs' }, 'Full log →')),
      activity)));

  async function loadReviews() {
    const { due } = await api('review');
    // Items graded on this page stay (with their result) after a refresh.
    const graded = [...reviews.children].filter((li) => li.dataset.state === 'graded');
    const kept = new Set(graded.map((li) => li.dataset.id));
    const items = due.filter((d) => !kept.has(String(d.id))).map(reviewItem);
    reviews.replaceChildren(...items, ...graded);
    if (!reviews.children.length) reviews.append(h('li', { class: 'empty' }, empty('Nothing is due. Well done.', 'review-empty')));
  }

  async function loadHealth() {
    const s = await api('stats');
    const hs = s.health || {};
    const tone = hs.score >= 80 ? 'good' : hs.score >= 50 ? 'warn' : 'bad';
    const counts = (m, name = (k) => k) => Object.entries(m || {}).map(([k, n]) => `${name(k)} ${n}`).join(' · ') || 'none';
    const parts = [['uniqueness', hs.uniqueness], ['consistency', hs.consistency],
      ['review success', hs.review_success], ['trust', hs.trust]];
    const failed = (s.views || []).filter((v) => v.failure);
    health.replaceChildren(
      h('h2', {}, 'Health'),
      h('div', { class: 'score-row' },
        h('div', { class: `score ${tone}` }, h('span', { 'data-testid': 'health-score' }, hs.score), h('small', {}, '/100')),
        h('dl', { class: 'parts' }, parts.map(([name, v]) => [
          h('dt', {}, name, h('span', { class: 'num' }, `${Math.round((v ?? 0) * 100)}%`)),
          h('dd', {}, bar(v ?? 0, `${name} ${Math.round((v ?? 0) * 100)}%`))]))),
      h('div', { class: 'stats' },
        h('span', { class: 'stat', 'data-testid': 'due-today' }, h('b', {}, s.due_reviews_today ?? 0), ' due today'),
        h('a', { class: 'stat', href: '#/verdicts', 'data-testid': 'open-contradictions' }, h('b', {}, s.open_contradictions ?? 0), ' open contradictions')),
      h('p', { class: 'small' }, h('span', { class: 'muted' }, 'Memories: '), counts(s.memories_by_status)),
      h('p', { class: 'small' }, h('span', { class: 'muted' }, 'Tiers: '), counts(s.memories_by_tier, (k) => k.toUpperCase())),
      h('p', { class: 'small muted' }, `Recall mode ${s.mode || 'keyword'}${s.model ? ` (${s.model})` : ''} · ${plural(s.n_events ?? 0, 'event')}, last seq ${s.last_seq ?? 0}`),
      failed.map((v) => h('p', { class: 'small bad-text' }, `View ${v.name} failed: ${v.failure}`)));
  }

  async function loadActivity() {
    const { events, scope } = await api('log', { query: { limit: 20 } });
    activity.replaceChildren(events.length ? eventTable(events, 'activity', true, scope) : empty('No activity yet.', 'activity-empty'));
  }

  function reviewItem(d) {
    const li = h('li', { class: 'card review', 'data-testid': 'review-item', 'data-id': d.id, 'data-state': 'due' });
    const buttons = GRADES.map(([n, label, hint]) => h('button', {
      type: 'button', class: `grade g${n}`, 'data-testid': `grade-${n}`, title: hint, 'aria-label': `${n} ${label}: ${hint}`,
      onclick: () => grade(li, d, n, buttons),
    }, h('b', {}, n), h('span', {}, label)));
    li.append(
      h('div', { class: 'review-head' },
        h('span', { class: 'coord' }, d.coordinate),
        h('span', { class: 'muted small' }, `memory ${d.id} · due `, when(d.due, true))),
      d.cues.length
        ? h('div', { class: 'cues' }, h('p', { class: 'muted small' }, 'Next to:'),
          h('ul', {}, d.cues.map((c) => h('li', {}, h('span', { class: 'coord' }, c.coordinate), ' ', h('span', { class: 'label' }, c.label)))))
        : h('p', { class: 'muted small' }, 'No neighbours in this room yet.'),
      h('div', { class: 'grades', role: 'group', 'aria-label': `Grade your recall of ${d.coordinate}` }, buttons));
    return li;
  }

  function grade(li, d, n, buttons) {
    return action(buttons, async () => {
      let r;
      try {
        r = await api(`memories/${mem(d.id)}/grade`, { method: 'POST', body: { grade: n } });
      } catch (err) {
        if (!gone(err)) throw err;
        notice('error', goneText(err, `Memory ${d.id} (${d.coordinate})`));
        li.remove();
        await settle(loadReviews(), loadHealth());
        return;
      }
      li.dataset.state = 'graded';
      const reveal = h('button', { type: 'button', class: 'ghost', 'data-testid': 'reveal' }, 'Show the memory');
      const result = h('div', { class: 'graded', 'data-testid': 'graded' },
        h('p', {}, `Graded ${n} (${GRADES[n][1]}). Next review in ${plural(r.interval_days, 'day')}: `,
          h('b', { 'data-testid': 'next-due' }, when(r.due)), '. ', memLink(d.id, 'History')),
        reveal);
      reveal.addEventListener('click', () => action([reveal], async () => {
        try {
          result.append(words(await api(`memories/${mem(d.id)}/expand`)));
          reveal.remove();
        } catch (err) {
          if (!gone(err)) throw err;
          notice('error', `Memory ${d.id} ${goneWhy(err)}: its words cannot be shown. The server said: ${err.message}`);
        }
      }));
      $('.grades', li).replaceWith(result);
      await settle(loadHealth(), loadActivity());
    });
  }

  await settle(loadHealth(), loadReviews(), loadActivity());
}

/* ---------- Entities ---------- */

async function renderEntities(root, r) {
  const category = h('select', { 'data-testid': 'entity-category' },
    h('option', { value: '' }, 'All categories'), CATEGORIES.map((c) => h('option', { value: c }, c)));
  category.value = r.params.get('category') || '';
  const search = h('input', { type: 'search', 'data-testid': 'entity-search', placeholder: 'Name contains…', value: r.params.get('search') || '' });
  const count = h('p', { class: 'muted small', 'aria-live': 'polite' });
  const list = h('div', { class: 'entities' });
  root.append(h('h1', {}, 'Entities'),
    h('div', { class: 'filters' },
      h('label', {}, 'Category', category),
      h('label', { class: 'grow' }, 'Search', search)),
    count, list);

  let latest = 0;
  async function load() {
    if (!root.isConnected) return; // left the view while the search was pending
    const mine = ++latest;
    const query = { category: category.value, search: search.value.trim() };
    const qs = new URLSearchParams(Object.entries(query).filter(([, v]) => v)).toString();
    history.replaceState(null, '', `#/entities${qs ? `?${qs}` : ''}`);
    const { entities } = await api('entities', { query });
    if (mine !== latest) return; // a newer search is on its way
    count.textContent = plural(entities.length, 'entity', 'entities');
    list.replaceChildren(...entities.map((e) => h('article', { class: 'card entity', 'data-testid': 'entity', 'data-category': e.category, 'data-name': e.name },
      h('header', {}, h('h3', {}, e.name), badge(e.category, `c-${e.category}`)),
      e.memories.length
        ? h('ul', { class: 'links' }, e.memories.map((m) => h('li', {},
          h('a', { href: `#/memory/${mem(m.id)}`, 'data-testid': 'entity-memory', class: 'coord' }, m.coordinate), ' ',
          h('span', { class: 'label' }, m.label))))
        : empty('No linked memories.'))));
    if (!entities.length) list.append(empty('No entities match.', 'entities-empty'));
  }

  let timer;
  category.addEventListener('change', () => task(load));
  search.addEventListener('input', () => {
    clearTimeout(timer);
    delete document.body.dataset.ready;
    timer = setTimeout(() => task(load), 250);
  });
  await load();
}

/* ---------- Verdicts ---------- */

async function renderVerdicts(root) {
  const open = h('div', { class: 'verdicts', 'data-testid': 'verdicts-open' });
  const shelved = h('div', { class: 'verdicts', 'data-testid': 'verdicts-shelved' });
  root.append(h('h1', {}, 'Verdicts'),
    h('p', { class: 'muted' }, 'Pairs of memories that disagree. Keep one, keep both, or shelve the question for later.'),
    h('h2', {}, 'Open'), open, h('h2', {}, 'Shelved'), shelved);

  async function load() {
    const v = await api('verdicts');
    open.replaceChildren(...v.open.map((c) => row(c, 'verdict')));
    if (!v.open.length) open.append(empty('No open contradictions.', 'verdicts-empty'));
    shelved.replaceChildren(...v.shelved.map((c) => row(c, 'shelved-verdict')));
    if (!v.shelved.length) shelved.append(empty('Nothing shelved.', 'shelved-empty'));
  }

  function row(c, testid) {
    const reason = h('input', { type: 'text', 'data-testid': 'verdict-reason', placeholder: 'Why (optional)', 'aria-label': 'Reason for the verdict' });
    const choices = Object.keys(VERDICTS).filter((v) => testid === 'verdict' || v !== 'shelve');
    const buttons = choices.map((v) => h('button', {
      type: 'button', class: v === 'shelve' ? 'ghost' : 'primary', 'data-testid': `verdict-${v}`,
      onclick: () => decide(c, v, reason, buttons),
    }, VERDICTS[v].replace(/^./, (x) => x.toUpperCase())));
    const side = (tag, id, label) => h('div', { class: 'side' },
      h('span', { class: 'tag' }, tag), h('div', {}, memLink(id), h('p', { class: 'label' }, label)));
    return h('article', { class: 'card verdict', 'data-testid': testid, 'data-a': c.a, 'data-b': c.b },
      h('p', { class: 'reason' }, c.reason),
      h('div', { class: 'pair' }, side('A', c.a, c.a_label), side('B', c.b, c.b_label)),
      h('div', { class: 'actions' }, reason, h('div', { class: 'buttons' }, buttons)));
  }

  function decide(c, verdict, reason, buttons) {
    return action([...buttons, reason], async () => {
      const body = { a: c.a, b: c.b, verdict };
      if (reason.value.trim()) body.reason = reason.value.trim();
      try {
        const r = await api('verdict', { method: 'POST', body });
        notice('info', `Recorded “${VERDICTS[verdict]}” on memories ${c.a} and ${c.b} (seq ${r.seq}).`);
      } catch (err) {
        if (!gone(err)) throw err;
        notice('error', goneText(err, `One of memories ${c.a} and ${c.b}`));
      }
      await load();
    });
  }

  await load();
}

/* ---------- Logs ---------- */

async function renderLogs(root, r) {
  const p = r.params;
  const field = (label, input) => h('label', {}, label, input);
  const memory = h('input', { type: 'text', 'data-testid': 'log-memory', value: p.get('memory') || '', placeholder: 'id (p:2)' });
  const session = h('input', { type: 'text', 'data-testid': 'log-session', value: p.get('session') || '', placeholder: 'session id' });
  const kind = h('select', { 'data-testid': 'log-kind' }, h('option', { value: '' }, 'any kind'),
    KINDS.map((k) => h('option', { value: k }, k === 'recalled' ? 'recalled (recall evidence)' : k)));
  kind.value = p.get('kind') || '';
  const since = h('input', { type: 'datetime-local', 'data-testid': 'log-since', value: toLocalInput(p.get('since')) });
  const until = h('input', { type: 'datetime-local', 'data-testid': 'log-until', value: toLocalInput(p.get('until')) });
  const limit = h('input', { type: 'number', min: 1, max: 10000, 'data-testid': 'log-limit', value: p.get('limit') || '200' });
  const form = h('form', { class: 'filters', 'data-testid': 'log-form' },
    field('Memory', memory), field('Session', session), field('Kind', kind),
    field('Since', since), field('Until', until), field('Limit', limit),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'log-apply' }, 'Show'),
      h('a', { href: '#/logs', class: 'button ghost' }, 'Reset')));
  const result = h('div', {});
  root.append(h('h1', {}, 'Logs'),
    h('p', { class: 'muted' }, 'The audit trail: every event in the log, with recall evidence (kind recalled). Newest first.'),
    form, result);

  const query = () => ({
    memory: memory.value.trim(), session: session.value.trim(), kind: kind.value,
    since: toUtc(since.value), until: toUtc(until.value), limit: limit.value.trim(),
  });
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const qs = new URLSearchParams(Object.entries(query()).filter(([, v]) => v)).toString();
    const hash = `#/logs${qs ? `?${qs}` : ''}`;
    if (hash === location.hash) action([$('[type=submit]', form)], load);
    else location.hash = hash;
  });

  async function load() {
    const { events, last_seq: last, scope } = await api('log', { query: query() });
    result.replaceChildren(
      h('p', { class: 'muted small', 'data-testid': 'log-count' }, `${plural(events.length, 'event')} shown; the log's last seq is ${last}.`),
      events.length ? eventTable(events, 'log-table', false, scope) : empty('No events match these filters.', 'log-empty'));
  }
  await load();
}

/* ---------- Memory ---------- */

async function renderMemory(root, r) {
  const id = r.arg;
  if (!/^([ups]:)?[1-9]\d*$/.test(id || '')) {
    root.append(h('h1', {}, 'Memory'), empty('A memory id names its store and a number, e.g. #/memory/p:42.', 'memory-missing'));
    return;
  }
  const [m, audit] = await Promise.allSettled([api(`memories/${mem(id)}`), api(`memories/${mem(id)}/audit`)]);
  if (m.status === 'rejected') {
    root.append(h('h1', {}, `Memory ${id}`), empty(gone(m.reason) ? 'There is no such memory.' : 'The memory could not be loaded.', 'memory-missing'));
    throw m.reason;
  }
  const reload = () => { root.replaceChildren(); return renderMemory(root, r); };
  root.append(memoryHeader(m.value, reload));
  const history = audit.status === 'fulfilled' ? audit.value.history : [];
  root.append(h('h2', {}, 'History'),
    history.length
      ? h('ol', { class: 'timeline', 'data-testid': 'timeline' }, history.map((x) => h('li', { 'data-testid': 'timeline-event', 'data-seq': x.seq, 'data-kind': x.kind },
        h('div', { class: 'when' }, when(x.ts ?? x.ts_ms), h('span', { class: 'muted small' }, ` · seq ${x.seq}`)),
        h('div', {}, badge(x.kind, `k-${x.kind}`), ' ', h('span', { class: 'text' }, x.subject)),
        h('div', { class: 'result' }, '→ ', x.result))))
      : empty('No history recorded.', 'timeline-empty'));
  if (audit.status === 'rejected') throw audit.reason;
}

function memoryHeader(m, reload) {
  const forgotten = m.status === 'forgotten';
  const expand = h('button', { type: 'button', class: 'ghost', 'data-testid': 'expand' },
    forgotten ? 'Show original words (audit mode)' : 'Show original words');
  const head = h('section', { class: 'card memory-head', 'data-testid': 'memory-header', 'data-id': m.id, 'data-status': m.status },
    h('div', { class: 'title' }, h('h1', { class: 'coord' }, m.coordinate), badge(m.status, `s-${m.status}`), badge(String(m.tier).toUpperCase())),
    m.label ? h('p', { class: 'label big' }, m.label) : null,
    h('dl', { class: 'facts' },
      [['id', m.id], ['room', m.room], ['source', m.source], ['summary', m.summary],
        ['tags', (m.tags || []).join(', ')],
        ['session', m.session ? `${m.session}, seqs ${m.first_seq}..${m.last_seq}` : null],
        ['created', m.created && when(m.created, true)], ['reinforced', m.reinforcements ? plural(m.reinforcements, 'time') : null],
        ['expires', m.expires && when(m.expires, true)]]
        .filter(([, v]) => v !== null && v !== undefined && v !== '')
        .map(([k, v]) => [h('dt', {}, k), h('dd', {}, v instanceof Node ? v : String(v))]),
      h('dt', {}, 'trust'),
      h('dd', { class: 'trust' }, bar(m.trust ?? 0, `trust ${m.trust}`), h('span', { class: 'num' }, Number(m.trust ?? 0).toFixed(2)))),
    h('div', { class: 'buttons' }, expand, h('a', { class: 'button ghost', href: `#/logs?memory=${mem(m.id)}` }, 'Log events naming it')));
  expand.addEventListener('click', () => action([expand], async () => {
    try {
      head.append(words(await api(`memories/${mem(m.id)}/expand`, { query: { audit: forgotten ? 'true' : '' } })));
      expand.remove();
    } catch (err) {
      if (!gone(err)) throw err;
      notice('error', `Memory ${m.id} ${goneWhy(err)} since this page was loaded; it has been reloaded. The server said: ${err.message}`);
      await reload();
    }
  }));
  return head;
}

/* ---------- Palace ---------- */

const capital = (text) => text.replace(/^./, (x) => x.toUpperCase());

/** A room's card: a link to its tour. */
function roomCard(x, current) {
  return h('a', {
    class: 'card room', href: `#/palace/${encodeURIComponent(x.room)}`, 'data-testid': 'room', 'data-room': x.room,
    'aria-current': x.room === current ? 'true' : null,
  },
  h('div', { class: 'room-head' }, h('b', {}, x.room), h('span', { class: 'num muted small' }, `${x.fill}/${x.capacity}`)),
  h('div', { class: 'fill' }, bar(x.fill / (x.capacity || 9), `${x.fill} of ${x.capacity} slots`)),
  h('p', { class: 'label small' }, clip(x.topic || '', 120)));
}

/**
 * The palace's corridors as a forest: each corridor with the rooms on it and
 * the corridors inside it. Every room of the directory is shown once, under
 * the corridor its entry names (a corridor no entry lists becomes a top
 * one); a corridor whose parent is missing, or that a loop would hide, is
 * shown at the top too.
 */
function corridorForest(palace, current) {
  const node = (c) => ({ corridor: c.corridor, inside: c.inside ?? null, placed_by: c.placed_by ?? null, rooms: [], nested: [] });
  const byName = new Map(palace.corridors.map((c) => [c.corridor, node(c)]));
  for (const x of palace.rooms) {
    if (!byName.has(x.corridor)) byName.set(x.corridor, node({ corridor: x.corridor }));
    byName.get(x.corridor).rooms.push(x);
  }
  const tops = [];
  for (const c of byName.values()) {
    const parent = c.inside === null ? undefined : byName.get(c.inside);
    (parent && parent !== c ? parent.nested : tops).push(c);
  }
  const seen = new Set();
  const section = (c, depth) => {
    seen.add(c.corridor);
    const nested = c.nested.filter((n) => !seen.has(n.corridor)).map((n) => section(n, depth + 1));
    const counts = [c.rooms.length || !c.nested.length ? plural(c.rooms.length, 'room') : null,
      c.nested.length ? plural(c.nested.length, 'corridor') : null].filter(Boolean).join(' · ');
    const placed = c.inside !== null ? ` · inside ${c.inside}${c.placed_by ? `, placed by ${c.placed_by}` : ''}` : '';
    return h('section', {
      class: 'corridor', 'data-testid': 'corridor', 'data-corridor': c.corridor,
      'data-inside': c.inside, 'data-placed-by': c.placed_by, 'aria-label': `corridor ${c.corridor}`,
    },
    h('div', { class: 'corridor-head' }, h(depth ? 'h3' : 'h2', {}, c.corridor), h('span', { class: 'muted small' }, counts + placed)),
    c.rooms.length ? h('div', { class: 'rooms' }, c.rooms.map((x) => roomCard(x, current))) : null,
    nested);
  };
  const out = tops.map((c) => section(c, 0));
  for (const c of byName.values()) if (!seen.has(c.corridor)) out.push(section(c, 0));
  return out;
}

async function renderPalace(root, r) {
  const corridors = h('div', { class: 'corridors' });
  const tour = h('section', { class: 'tour-pane' });
  const names = h('datalist', { id: 'palace-names' });
  const corridorNames = h('datalist', { id: 'palace-corridors' });
  const name = h('input', { type: 'text', 'data-testid': 'corridor-name', list: 'palace-names', value: r.arg || '', placeholder: 'room or corridor' });
  const kind = h('select', { 'data-testid': 'corridor-kind' },
    h('option', { value: '' }, 'room, else corridor'), h('option', { value: 'room' }, 'room'), h('option', { value: 'corridor' }, 'corridor'));
  const into = h('input', { type: 'text', 'data-testid': 'corridor-into', list: 'palace-corridors', placeholder: 'a corridor, or a new name' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'corridor-submit' }, 'Put on corridor');
  const form = h('form', { class: 'filters', 'data-testid': 'corridor-form' },
    h('label', { class: 'grow' }, 'Move', name), h('label', {}, 'Which is a', kind), h('label', { class: 'grow' }, 'Onto corridor', into),
    h('div', { class: 'buttons' }, submit), names, corridorNames);
  root.append(h('h1', {}, 'Palace'),
    h('p', { class: 'muted' }, 'Rooms of nine slots on corridors of related rooms; corridors nest. A room never placed on a corridor is on general. Pick a room for its tour, slot by slot.'),
    form,
    h('p', { class: 'muted small' }, 'Moving a room moves every room of its topic (deploy-2 goes with deploy). A corridor cannot go inside itself or a corridor inside it, and what you placed a model cannot move.'),
    h('div', { class: 'palace' }, corridors, tour));

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    action([submit], async () => {
      const body = { name: name.value.trim(), into: into.value.trim() };
      if (!body.name || !body.into) {
        notice('error', 'Name the room or corridor to move and the corridor to put it on.');
        (body.name ? into : name).focus();
        return;
      }
      if (kind.value) body.kind = kind.value;
      const x = await api('corridors', { method: 'POST', body });
      const where = x.placed === 'corridor' ? 'inside' : 'on';
      notice('info', x.changed
        ? `${capital(x.placed)} ${x.name} is now ${where} corridor ${x.corridor}${x.from ? ` (it was ${where} ${x.from})` : ''}.`
        : `${capital(x.placed)} ${x.name} was already ${where} corridor ${x.corridor}: nothing changed.`);
      await load(false);
    });
  });

  async function load(first) {
    const [dir, one] = await Promise.allSettled([
      api('palace'), r.arg ? api(`palace/${encodeURIComponent(r.arg)}`) : Promise.resolve(null)]);
    if (dir.status === 'fulfilled') {
      const palace = dir.value;
      corridors.replaceChildren(...corridorForest(palace, r.arg));
      if (!palace.rooms.length) corridors.append(empty('The palace is empty: nothing remembered yet.', 'palace-empty'));
      const option = (value) => h('option', { value });
      corridorNames.replaceChildren(...palace.corridors.map((c) => option(c.corridor)));
      names.replaceChildren(...palace.rooms.map((x) => option(x.room)), ...palace.corridors.map((c) => option(c.corridor)));
    }
    if (one.status === 'fulfilled' && one.value) {
      tour.replaceChildren(roomTour(one.value));
      if (first && !matchMedia('(min-width: 900px)').matches) tour.scrollIntoView(); // below the rooms on a phone
    } else if (!r.arg) {
      tour.replaceChildren(empty('Choose a room to walk its tour.', 'tour-hint'));
    }
    for (const x of [dir, one]) if (x.status === 'rejected') report(x.reason);
  }

  await load(true);
}

function roomTour(x) {
  const slots = x.tour.map((s) => h('li', { class: `stop s-${s.status}`, 'data-testid': 'tour-stop', 'data-slot': s.slot, 'data-id': s.id, 'data-status': s.status },
    h('span', { class: 'slot' }, s.slot),
    h('div', {}, h('a', { href: `#/memory/${mem(s.id)}`, class: 'coord' }, s.coordinate), ' ', badge(s.status, `s-${s.status}`),
      h('p', { class: 'label' }, s.label))));
  const next = x.tour.reduce((top, s) => Math.max(top, s.slot), 0);
  for (let i = 1; i <= Math.max(0, x.capacity - x.fill); i += 1) {
    slots.push(h('li', { class: 'stop empty-slot', 'data-testid': 'tour-empty' }, h('span', { class: 'slot' }, next + i), h('p', { class: 'muted' }, 'empty')));
  }
  return h('div', { class: 'card tour', 'data-testid': 'tour', 'data-room': x.room },
    h('h2', {}, x.room), h('p', { class: 'muted small' }, `corridor ${x.corridor} · ${x.fill} of ${x.capacity} slots taken`),
    x.topic ? h('p', { class: 'label' }, x.topic) : null,
    h('ol', { class: 'stops' }, slots));
}

/* ---------- Search ---------- */

async function renderSearch(root, r) {
  const p = r.params;
  const query = h('input', { type: 'search', 'data-testid': 'search-query', value: p.get('q') || '', placeholder: 'Keywords or a question' });
  const minScore = h('input', { type: 'number', min: 0, max: 1000, step: 'any', 'data-testid': 'search-min-score', value: p.get('min_score') || '', placeholder: 'default' });
  const limit = h('input', { type: 'number', min: 1, max: 100, 'data-testid': 'search-limit', value: p.get('limit') || '5' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'search-submit' }, 'Recall');
  const form = h('form', { class: 'filters', 'data-testid': 'search-form' },
    h('label', { class: 'grow' }, 'Query', query), h('label', {}, 'Min score', minScore), h('label', {}, 'Limit', limit),
    h('div', { class: 'buttons' }, submit));
  const result = h('div', {});
  root.append(h('h1', {}, 'Search'),
    h('p', { class: 'muted' }, 'Recall as an agent does: the hits, and the context block exactly as the agent is handed it. Each search is recorded in the log as recall evidence.'),
    form, result);

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    if (!query.value.trim()) {
      clearNotices();
      notice('error', 'Type what to look for: recall needs words.');
      query.focus();
      return;
    }
    const qs = new URLSearchParams(Object.entries({ q: query.value.trim(), min_score: minScore.value.trim(), limit: limit.value.trim() })
      .filter(([, v]) => v)).toString();
    const hash = `#/search?${qs}`;
    if (hash === location.hash) action([submit], run);
    else location.hash = hash;
  });

  function hitItem(x) {
    return h('li', { class: 'card hit', 'data-testid': 'search-hit', 'data-id': x.id, 'data-status': x.status, 'data-reference-only': String(x.reference_only) },
      h('div', { class: 'hit-head' },
        h('a', { href: `#/memory/${mem(x.id)}`, class: 'coord' }, x.coordinate),
        badge(x.status, x.status === 'confirmed' ? 's-live' : ''),
        x.reference_only ? badge('reference only', 's-archived') : null,
        badge(String(x.tier).toUpperCase()),
        h('span', { class: 'num small muted' }, `score ${x.score} · trust ${Number(x.trust).toFixed(2)} · ${x.id}`)),
      h('p', { class: 'text' }, x.text ?? ''),
      (x.restated || []).map((r) => h('div', { class: 'restated', 'data-testid': 'search-hit-restated' },
        h('p', { class: 'small muted' }, 'Restated as:'),
        h('p', { class: 'text' }, r))),
      x.tags && x.tags.length ? h('p', { class: 'small muted' }, `tags: ${x.tags.join(', ')}`) : null);
  }

  async function run() {
    const q = query.value.trim();
    if (!q) return;
    const body = { query: q };
    if (limit.value.trim()) body.limit = Number(limit.value);
    if (minScore.value.trim()) body.min_score = Number(minScore.value);
    result.replaceChildren();
    const x = await api('recall', { method: 'POST', body });
    result.replaceChildren(
      h('p', { class: 'muted small', 'data-testid': 'search-count' }, `${plural(x.hits.length, 'hit')} · ${x.mode} recall`),
      (x.skipped || []).map((s) => h('p', { class: 'small bad-text' }, `Not searched: ${s}`)),
      x.hits.length ? h('ol', { class: 'hits', 'data-testid': 'search-hits' }, x.hits.map(hitItem)) : empty('No memory matches.', 'search-empty'),
      h('h2', {}, 'Context block'),
      h('p', { class: 'muted small' }, 'The bytes an agent receives for this recall (the MCP recall tools, recall --format context, the prompt hook).'),
      h('pre', { class: 'context', 'data-testid': 'search-context' }, x.context));
  }

  await run();
}

/* ---------- Memories ---------- */

const TIERS = ['l1', 'l2', 'l3', 'l4'];
const STATUSES = ['live', 'superseded', 'archived', 'forgotten'];
/** Memory ids as the API takes them: an optional store letter and a number. */
const ID_PATTERN = /^([ups]:)?[1-9]\d*$/;

async function renderMemories(root, r) {
  const p = r.params;
  const field = (label, input, cls) => h('label', { class: cls }, label, input);
  const room = h('input', { type: 'text', 'data-testid': 'mem-room', value: p.get('room') || '', placeholder: 'room' });
  const tag = h('input', { type: 'text', 'data-testid': 'mem-tag', value: p.get('tag') || '', placeholder: 'tag' });
  const tier = h('select', { 'data-testid': 'mem-tier' }, h('option', { value: '' }, 'any tier'), TIERS.map((t) => h('option', { value: t }, t.toUpperCase())));
  tier.value = p.get('tier') || '';
  const status = h('select', { 'data-testid': 'mem-status' }, h('option', { value: '' }, 'all but forgotten'), STATUSES.map((s) => h('option', { value: s }, s)));
  status.value = p.get('status') || '';
  const since = h('input', { type: 'datetime-local', 'data-testid': 'mem-since', value: toLocalInput(p.get('since')) });
  const filters = h('form', { class: 'filters', 'data-testid': 'memories-form' },
    field('Room', room), field('Tag', tag), field('Tier', tier), field('Status', status), field('Created since', since),
    h('div', { class: 'buttons' },
      h('button', { type: 'submit', class: 'primary', 'data-testid': 'memories-apply' }, 'Show'),
      h('a', { href: '#/memories', class: 'button ghost' }, 'Reset')));

  const goto = h('input', { type: 'text', 'data-testid': 'memories-goto', placeholder: 'p:42' });
  const gotoForm = h('form', { class: 'row' }, field('Open a memory by id', goto),
    h('button', { type: 'submit', class: 'ghost', 'data-testid': 'memories-goto-submit' }, 'Open'));

  const text = h('textarea', { 'data-testid': 'add-text', rows: 3, placeholder: 'A fact, decision or preference worth keeping' });
  const tags = h('input', { type: 'text', 'data-testid': 'add-tags', placeholder: 'tags, comma separated' });
  const addRoom = h('input', { type: 'text', 'data-testid': 'add-room', placeholder: 'chosen automatically' });
  const addSubmit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'add-submit' }, 'Remember');
  const add = h('form', { class: 'card add', 'data-testid': 'add-form' },
    h('h2', {}, 'Remember'),
    field('Words', text, 'grow'),
    h('div', { class: 'row' }, field('Tags', tags, 'grow'), field('Room', addRoom), addSubmit));

  const list = h('ol', { class: 'memories', 'data-testid': 'memories-list' });
  const more = h('button', { type: 'button', class: 'ghost', 'data-testid': 'memories-more', hidden: true }, 'Load more');
  const count = h('p', { class: 'muted small', 'data-testid': 'memories-count' });
  root.append(h('h1', {}, 'Memories'),
    h('p', { class: 'muted' }, 'Newest first. Filter, page, open, forget; or remember something new.'),
    add, filters, gotoForm, count, list, more);

  const query = () => ({
    room: room.value.trim(), tag: tag.value.trim(), tier: tier.value, status: status.value, since: toUtc(since.value),
  });
  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const qs = new URLSearchParams(Object.entries(query()).filter(([, v]) => v)).toString();
    const hash = `#/memories${qs ? `?${qs}` : ''}`;
    if (hash === location.hash) action([$('[type=submit]', filters)], load);
    else location.hash = hash;
  });
  gotoForm.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const id = goto.value.trim();
    if (!ID_PATTERN.test(id)) {
      clearNotices();
      notice('error', `“${id}” is not a memory id: an id is a store letter and a number, like p:42 (or just 42).`);
      return;
    }
    location.hash = `#/memory/${mem(id)}`;
  });
  add.addEventListener('submit', (ev) => {
    ev.preventDefault();
    action([addSubmit], async () => {
      const content = text.value.trim();
      if (!content) {
        notice('error', 'Write the words to remember first.');
        text.focus();
        return;
      }
      const body = { content, tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean) };
      if (addRoom.value.trim()) body.room = addRoom.value.trim();
      const x = await api('remember', { method: 'POST', body });
      text.value = '';
      const also = x.related ? ` (related: ${x.related})` : '';
      notice('info', `Remembered ${x.id} at ${x.coordinate}: ${x.outcome}${also}.`);
      await load();
    });
  });

  let next = null;
  async function load(append) {
    const q = query();
    if (append) q.cursor = next;
    const page = await api('memories', { query: q });
    const rows = page.memories.map(row);
    if (append) list.append(...rows);
    else list.replaceChildren(...rows);
    next = page.next;
    more.hidden = !next;
    count.textContent = `${plural(list.querySelectorAll('[data-testid="memory-row"]').length, 'memory', 'memories')} shown${next ? '; more below' : ''}.`;
    if (!list.children.length) list.append(h('li', { class: 'empty' }, empty('No memories match these filters.', 'memories-empty')));
  }
  more.addEventListener('click', () => action([more], () => load(true)));

  function row(m) {
    const forget = h('button', { type: 'button', class: 'ghost', 'data-testid': 'memory-forget', hidden: m.status === 'forgotten' }, 'Forget…');
    const expand = h('button', { type: 'button', class: 'ghost', 'data-testid': 'memory-expand' }, 'Show words');
    const li = h('li', { class: 'card memory', 'data-testid': 'memory-row', 'data-id': m.id, 'data-status': m.status },
      h('div', { class: 'hit-head' },
        h('a', { href: `#/memory/${mem(m.id)}`, class: 'coord', 'data-testid': 'memory-link' }, m.coordinate || m.id),
        badge(m.status, `s-${m.status}`), badge(String(m.tier).toUpperCase()),
        h('span', { class: 'small muted' }, m.id, ' · ', m.created ? when(m.created) : '', m.room ? ` · room ${m.room}` : '')),
      h('p', { class: 'text' }, m.text ?? (m.verified === false ? '(its view entries failed verification: not shown)' : m.label || '')),
      m.tags && m.tags.length ? h('p', { class: 'small muted' }, `tags: ${m.tags.join(', ')}`) : null,
      h('div', { class: 'buttons' }, expand, forget));
    expand.addEventListener('click', () => action([expand], async () => {
      try {
        li.append(words(await api(`memories/${mem(m.id)}/expand`, { query: { audit: m.status === 'forgotten' ? 'true' : '' } })));
        expand.remove();
      } catch (err) {
        if (!gone(err)) throw err;
        notice('error', `Memory ${m.id} ${goneWhy(err)}: its words cannot be shown. The server said: ${err.message}`);
      }
    }));
    forget.addEventListener('click', () => {
      if ($('[data-testid="forget-confirm-form"]', li)) return;
      const reason = h('input', { type: 'text', 'data-testid': 'forget-reason', placeholder: 'Why (kept in the tombstone)' });
      const yes = h('button', { type: 'submit', class: 'primary danger', 'data-testid': 'forget-confirm' }, 'Forget it');
      const no = h('button', { type: 'button', class: 'ghost', 'data-testid': 'forget-cancel' }, 'Cancel');
      const confirmForm = h('form', { class: 'confirm', 'data-testid': 'forget-confirm-form' },
        h('p', { class: 'small' }, `Forget ${m.id}? It leaves recall for good; the log keeps a tombstone with your reason.`),
        h('div', { class: 'row' }, h('label', { class: 'grow' }, 'Reason', reason), yes, no));
      no.addEventListener('click', () => confirmForm.remove());
      confirmForm.addEventListener('submit', (ev) => {
        ev.preventDefault();
        action([yes, no], async () => {
          if (!reason.value.trim()) {
            notice('error', 'Give a reason for forgetting: it is kept in the tombstone.');
            reason.focus();
            return;
          }
          try {
            const x = await api(`memories/${mem(m.id)}/forget`, { method: 'POST', body: { reason: reason.value.trim() } });
            notice('info', x.already ? `${x.id} was already forgotten (seq ${x.seq}).` : `Forgot ${x.id} (tombstone at seq ${x.seq}).`);
          } catch (err) {
            if (!gone(err)) throw err;
            notice('error', goneText(err, `Memory ${m.id}`));
          }
          await load();
        });
      });
      li.append(confirmForm);
      reason.focus();
    });
    return li;
  }

  await load();
}

/* ---------- Charts ---------- */

const SVG_NS = 'http://www.w3.org/2000/svg';
/** An SVG element; children are nodes or text. */
function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null && value !== false) el.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child !== undefined && child !== null && child !== false) el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const BUCKETS = [['', 'sized to the log'], ['hour', 'hour'], ['day', 'day'], ['week', 'week']];
const CHART_W = 640;
const CHART_H = 200;
const PAD = { left: 44, right: 12, top: 12, bottom: 28 };

/** A line chart of `points` ([x index, value, bucket start]) over `n` buckets, values 0..max. */
function lineChart(name, title, n, points, { max, format = (v) => String(v) }) {
  const top = Math.max(max ?? 0, ...points.map(([, v]) => v), 1);
  const w = CHART_W - PAD.left - PAD.right;
  const hgt = CHART_H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (n > 1 ? (i / (n - 1)) * w : w / 2);
  const y = (v) => PAD.top + hgt - (v / top) * hgt;
  const fmtTime = (ms) => new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
  const path = points.map(([i, v], k) => `${k ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const chart = svg('svg', { viewBox: `0 0 ${CHART_W} ${CHART_H}`, class: 'chart-svg', role: 'img', 'aria-label': `${title}: ${points.length} points` },
    svg('line', { class: 'axis', x1: PAD.left, y1: PAD.top + hgt, x2: PAD.left + w, y2: PAD.top + hgt }),
    svg('line', { class: 'axis', x1: PAD.left, y1: PAD.top, x2: PAD.left, y2: PAD.top + hgt }),
    svg('text', { class: 'tick', x: PAD.left - 6, y: PAD.top + 4, 'text-anchor': 'end' }, format(top)),
    svg('text', { class: 'tick', x: PAD.left - 6, y: PAD.top + hgt + 4, 'text-anchor': 'end' }, format(0)),
    points.length ? svg('path', { class: `line l-${name}`, d: path }) : null,
    points.map(([i, v, start]) => svg('circle', {
      class: `dot l-${name}`, cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 3.5,
      'data-testid': 'chart-point', 'data-start': start, 'data-value': v,
    }, svg('title', {}, `${fmtTime(start)}: ${format(v)}`))));
  return { chart, fmtTime };
}

async function renderCharts(root, r) {
  const bucket = h('select', { 'data-testid': 'chart-bucket' }, BUCKETS.map(([v, label]) => h('option', { value: v }, label)));
  bucket.value = r.params.get('bucket') || '';
  const charts = h('div', { class: 'charts' });
  const caption = h('p', { class: 'muted small', 'data-testid': 'charts-caption' });
  root.append(h('h1', {}, 'Charts'),
    h('p', { class: 'muted' }, 'Drawn from the log: per bucket of commit time, the live memories, the recalls, the share of recalls that found something, and the health score.'),
    h('div', { class: 'filters' }, h('label', {}, 'Bucket', bucket)), caption, charts);
  bucket.addEventListener('change', () => {
    location.hash = `#/charts${bucket.value ? `?bucket=${bucket.value}` : ''}`;
  });

  const s = await api('series', { query: { bucket: bucket.value } });
  const points = s.points;
  if (!points.length) {
    charts.append(empty('Nothing in the log yet: nothing to draw.', 'charts-empty'));
    return;
  }
  const n = points.length;
  const hours = s.bucket_ms / 3600000;
  const size = hours >= 24 ? plural(hours / 24, 'day') : hours >= 1 ? plural(hours, 'hour') : plural(hours * 60, 'minute');
  caption.textContent = `${plural(n, 'bucket')} of ${size}, through seq ${s.last_seq}.`;
  const series = (name, title, pick, opts = {}) => {
    const pts = points.map((p, i) => [i, pick(p), p.start_ms]).filter(([, v]) => v !== null && v !== undefined);
    const { chart, fmtTime } = lineChart(name, title, n, pts, opts);
    return h('figure', { class: 'card chart', 'data-testid': 'chart', 'data-series': name, 'data-points': pts.length },
      h('figcaption', {}, h('b', {}, title), h('span', { class: 'muted small' }, opts.note || '')),
      chart,
      h('div', { class: 'axis-labels muted small' }, h('span', {}, fmtTime(points[0].start_ms)), h('span', {}, fmtTime(points[n - 1].start_ms))));
  };
  charts.append(
    series('live', 'Memories', (p) => p.live, { note: ' live at each bucket’s end' }),
    series('recalls', 'Recalls', (p) => p.recalls, { note: ' per bucket' }),
    series('hit_rate', 'Hit rate', (p) => p.hit_rate, { max: 1, format: (v) => `${Math.round(v * 100)}%`, note: ' recalls with a hit / recalls; buckets without recalls have no point' }),
    series('health', 'Health', (p) => p.health, { max: 100, note: ' 0-100 at each bucket’s end' }));
}

/* ---------- Maintain ---------- */

async function renderMaintain(root) {
  const at = h('input', { type: 'text', 'data-testid': 'maintain-at', placeholder: 'now (or +30d, or RFC 3339)' });
  const dry = h('button', { type: 'button', class: 'primary', 'data-testid': 'maintain-dry-run' }, 'Dry run');
  const apply = h('button', { type: 'button', class: 'danger', 'data-testid': 'maintain-apply', disabled: true }, 'Apply');
  const plan = h('div', { 'data-testid': 'maintain-result' });
  const clusters = h('div', { class: 'clusters' });
  const renovation = h('div', {});
  root.append(h('h1', {}, 'Maintain'),
    h('section', { class: 'card' },
      h('h2', {}, 'Maintenance'),
      h('p', { class: 'muted small' }, 'Archives expired, decayed and evicted memories and refreshes uniqueness. A dry run says what would happen; Apply then runs it (at the same time).'),
      h('div', { class: 'row' }, h('label', { class: 'grow' }, 'As if at', at), dry, apply),
      plan),
    h('h2', {}, 'Distill'),
    h('p', { class: 'muted small' }, 'Clusters of similar memories worth one rule. Write the rule, dry-run it (confidence, room, the words as they would be kept), then record it.'),
    clusters,
    h('h2', {}, 'Renovation'),
    h('p', { class: 'muted small' }, 'Memories too alike to others to stand alone: merge, distill or forget them.'),
    renovation);

  function describePlan(x) {
    const rows = [
      ...x.archived.map((a) => h('li', { 'data-testid': 'maintain-archive', 'data-id': a.id }, memLink(a.id, a.id), ` ${x.dry_run ? 'would be archived' : 'archived'}: ${a.reason}`)),
      ...x.rescored.map((s) => h('li', { 'data-testid': 'maintain-rescore', 'data-id': s.id }, memLink(s.id, s.id), ` uniqueness ${s.from} → ${s.uniqueness}`)),
    ];
    return [h('p', { class: 'small', 'data-testid': 'maintain-summary', 'data-dry-run': String(x.dry_run) },
      `${x.dry_run ? 'Dry run: would archive' : 'Archived'} ${plural(x.archived.length, 'memory', 'memories')} and ${x.dry_run ? 'rescore' : 'rescored'} ${x.rescored.length}.`),
    rows.length ? h('ul', { class: 'plan' }, rows) : empty(x.dry_run ? 'Nothing to archive or rescore.' : 'Nothing was archived or rescored.', 'maintain-nothing')];
  }
  const body = (dryRun) => {
    const b = { dry_run: dryRun };
    if (at.value.trim()) b.at = at.value.trim();
    return b;
  };
  at.addEventListener('input', () => { apply.disabled = true; });
  dry.addEventListener('click', () => action([dry], async () => {
    apply.disabled = true;
    plan.replaceChildren(...describePlan(await api('maintain', { method: 'POST', body: body(true) })));
    apply.disabled = false;
  }));
  apply.addEventListener('click', () => action([dry, apply], async () => {
    const x = await api('maintain', { method: 'POST', body: body(false) });
    plan.replaceChildren(...describePlan(x));
    notice('info', `Maintenance ran: ${plural(x.archived.length, 'memory', 'memories')} archived, ${x.rescored.length} rescored.`);
    await settle(loadRenovation());
  }).then(() => { apply.disabled = true; }));

  function cluster(c) {
    const members = c.members.map((m) => m.id);
    const rule = h('textarea', { rows: 2, 'data-testid': 'distill-rule', placeholder: 'The rule these memories share, in your words' });
    const dryRun = h('button', { type: 'button', class: 'primary', 'data-testid': 'distill-dry-run' }, 'Dry run');
    const record = h('button', { type: 'button', class: 'danger', 'data-testid': 'distill-apply', disabled: true }, 'Record the rule');
    const out = h('div', { 'data-testid': 'distill-plan' });
    const card = h('article', { class: 'card cluster', 'data-testid': 'distill-cluster', 'data-members': members.join(',') },
      h('ul', { class: 'links' }, c.members.map((m) => h('li', {}, h('a', { href: `#/memory/${mem(m.id)}`, class: 'coord' }, m.coordinate), ' ', h('span', { class: 'label' }, m.label)))),
      h('label', {}, 'Rule', rule), h('div', { class: 'buttons' }, dryRun, record), out);
    const request = (dry_run) => ({ members, rule: rule.value.trim(), by: 'user', dry_run });
    const check = () => {
      if (rule.value.trim()) return true;
      notice('error', 'Write the rule first: distill records your words.');
      rule.focus();
      return false;
    };
    rule.addEventListener('input', () => { record.disabled = true; });
    dryRun.addEventListener('click', () => action([dryRun], async () => {
      record.disabled = true;
      if (!check()) return;
      const x = await api('distill', { method: 'POST', body: request(true) });
      out.replaceChildren(h('p', { class: 'small' }, `Would record in room ${x.room}, confidence ${Number(x.confidence).toFixed(2)}, from ${x.members.join(', ')}:`),
        h('p', { class: 'text' }, x.rule));
      record.disabled = false;
    }));
    record.addEventListener('click', () => action([dryRun, record], async () => {
      if (!check()) return;
      const x = await api('distill', { method: 'POST', body: request(false) });
      out.replaceChildren(h('p', { class: 'small' }, 'Recorded as ', memLink(x.id, `${x.id} at ${x.coordinate}`), `, confidence ${Number(x.confidence).toFixed(2)}.`));
      notice('info', `Distilled rule ${x.id} from ${x.members.join(', ')}.`);
    }).then(() => { record.disabled = true; }));
    return card;
  }

  async function loadClusters() {
    const x = await api('distill/candidates');
    clusters.replaceChildren(...x.clusters.map(cluster));
    if (!x.clusters.length) clusters.append(empty('No clusters of similar memories.', 'distill-empty'));
  }
  async function loadRenovation() {
    const x = await api('renovation');
    renovation.replaceChildren(x.memories.length
      ? h('ul', { class: 'plan' }, x.memories.map((m) => h('li', { 'data-testid': 'renovation-item', 'data-id': m.id },
        h('a', { href: `#/memory/${mem(m.id)}`, class: 'coord' }, m.coordinate), ` uniqueness ${Number(m.uniqueness).toFixed(2)} `, h('span', { class: 'label' }, m.label))))
      : empty('Nothing to renovate: every memory stands alone.', 'renovation-empty'));
  }
  await settle(loadClusters(), loadRenovation());
}

/* ---------- Data: ingest and export ---------- */

/** The ingest body limit (16 MiB of JSON, the transcript escaped inside it). */
const INGEST_BYTES_MAX = 16 << 20;

async function renderData(root) {
  const file = h('input', { type: 'file', 'data-testid': 'ingest-file', accept: '.jsonl,.ndjson,.json,.txt,application/json,application/x-ndjson,text/plain' });
  const session = h('input', { type: 'text', 'data-testid': 'ingest-session', placeholder: 'from the transcript' });
  const skip = h('input', { type: 'checkbox', 'data-testid': 'ingest-skip-bad' });
  const extract = h('input', { type: 'checkbox', 'data-testid': 'ingest-extract', checked: true });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-testid': 'ingest-submit' }, 'Ingest');
  const result = h('div', { 'data-testid': 'ingest-result' });
  const form = h('form', { class: 'card', 'data-testid': 'ingest-form' },
    h('h2', {}, 'Ingest a transcript'),
    h('p', { class: 'muted small' }, 'A JSON-lines transcript as engram ingest takes it: {"role","content"} per line, or a Claude Code session file. Its turns are recorded (redacted) as one session; with extraction, the preferences, decisions, corrections and facts of the user’s turns are remembered. Ingesting the same transcript again adds nothing.'),
    h('div', { class: 'row' },
      h('label', { class: 'grow' }, 'Transcript file', file),
      h('label', {}, 'Session', session)),
    h('div', { class: 'row' },
      h('label', { class: 'check' }, h('span', {}, 'Skip bad lines'), skip),
      h('label', { class: 'check' }, h('span', {}, 'Extract memories'), extract),
      submit),
    result);

  const exportBox = h('div', { class: 'buttons' });
  root.append(h('h1', {}, 'Data'), form,
    h('section', { class: 'card' }, h('h2', {}, 'Export'),
      h('p', { class: 'muted small' }, 'The whole log as engram export writes it (JSON lines with line hashes and a digest), for engram import on another machine.'),
      exportBox));

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    action([submit], async () => {
      const f = file.files[0];
      if (!f) {
        notice('error', 'Choose a transcript file first (JSON lines).');
        return;
      }
      if (f.size > INGEST_BYTES_MAX) {
        notice('error', `${f.name} has ${f.size} bytes: an upload takes at most 16 MiB (use engram ingest for larger transcripts).`);
        return;
      }
      const transcript = await f.text();
      if (!transcript.trim()) {
        notice('error', `${f.name} is empty: nothing to ingest.`);
        return;
      }
      const body = { transcript, skip_bad_lines: skip.checked, extract: extract.checked };
      if (session.value.trim()) body.session = session.value.trim();
      const x = await api('ingest', { method: 'POST', body });
      result.replaceChildren(
        h('p', { class: 'small', 'data-testid': 'ingest-summary', 'data-session': x.session, 'data-new-turns': x.new_turns },
          `Session ${x.session}: ${plural(x.turns, 'turn')} (${x.new_turns} new, ${x.held_turns} already held), seqs ${x.first_seq}–${x.last_seq}, ${x.redacted} redacted.`),
        x.extracted.length
          ? h('ul', { class: 'plan' }, x.extracted.map((e) => h('li', { 'data-testid': 'ingest-extracted' },
            badge(e.kind), ' ', e.id ? memLink(e.id, e.id) : '', ` ${e.outcome}: `, h('span', { class: 'text' }, e.sentence))))
          : h('p', { class: 'muted small' }, 'No memories extracted.'),
        x.skipped.map((s) => h('p', { class: 'small bad-text', 'data-testid': 'ingest-skipped' }, `Skipped${s.line ? ` line ${s.line}` : ''}: ${s.reason}`)));
      notice('info', `Ingested ${f.name} into session ${x.session}.`);
    });
  });

  if (!state.token) {
    // Streamed by the browser straight to a file (the server names it).
    exportBox.append(h('a', { class: 'button primary', href: 'api/export', download: '', 'data-testid': 'export-link' }, 'Download the export'));
  } else {
    // A link cannot carry the bearer token: fetch it, then save it.
    const button = h('button', { type: 'button', class: 'primary', 'data-testid': 'export-download' }, 'Download the export');
    button.addEventListener('click', () => action([button], async () => {
      countRequest(1);
      try {
        const res = await fetch('api/export', { headers: { Authorization: `Bearer ${state.token}` } });
        if (!res.ok) {
          const data = await res.json().catch(() => null);
          if (res.status === 401) askToken(data?.message || 'unauthorized');
          throw new ApiError(res.status, data?.error || `http_${res.status}`, data?.message || `${res.status} ${res.statusText}`);
        }
        const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') || '')?.[1] || 'engram-export.jsonl';
        const url = URL.createObjectURL(await res.blob());
        const a = h('a', { href: url, download: name });
        document.body.append(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 60000);
      } finally {
        countRequest(-1);
      }
    }));
    exportBox.append(button);
  }
}

/* ---------- start ---------- */

$('#token-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  setToken($('#token-input').value.trim());
  $('#token-input').value = '';
  $('#token-form').hidden = true;
  route();
});
window.addEventListener('hashchange', route);
route();
