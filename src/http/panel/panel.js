/* engram admin panel: plain JS, no build step, served by `engram serve` at `/`
 * next to index.html and panel.css; talks to the JSON API under `api/`
 * (docs/http.md). All stored text goes into the page as text (textContent),
 * never as markup.
 *
 * Routes (location.hash): #/today  #/entities?category=&search=  #/verdicts
 *   #/logs?memory=&session=&kind=&since=&until=&limit=  #/palace  #/palace/ROOM
 *   #/memory/ID (a memory's header and history timeline).
 * A memory id names its store (`p:2`, `u:2`, `s:2`); it is URL-encoded
 * wherever it goes into a path or a query (mem() below).
 *   A `token=...` parameter anywhere in the hash (#token=abc, #/today&token=abc)
 *   is kept in sessionStorage ("engram.token"), stripped from the URL and sent
 *   as `Authorization: Bearer` on every API call.
 *
 * Test hooks (data-testid unless said otherwise):
 *   Readiness: body[data-ready="today|entities|verdicts|logs|palace|memory|missing"]
 *     is set when a view, or an action with the refresh it causes, has
 *     finished (also when it failed: the error notice says why); it is removed
 *     synchronously when a load or action starts. body[data-busy="1"] while
 *     any API request is in flight.
 *   tab-today, tab-entities, tab-verdicts, tab-logs, tab-palace: nav links
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
 *   Palace: room[data-room] (links), tour[data-room] with
 *     tour-stop[data-slot][data-id][data-status] and tour-empty slots.
 *   Rows of both event tables (activity, log-table) are log-row. Empty states:
 *     review-empty, activity-empty, entities-empty, verdicts-empty,
 *     shelved-empty, log-empty, timeline-empty, memory-missing, palace-empty.
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
  entities: ['Entities', renderEntities],
  verdicts: ['Verdicts', renderVerdicts],
  logs: ['Logs', renderLogs],
  palace: ['Palace', renderPalace],
  memory: ['Memory', renderMemory],
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

async function renderPalace(root, r) {
  const rooms = h('div', { class: 'rooms' });
  const tour = h('section', { class: 'tour-pane' });
  root.append(h('h1', {}, 'Palace'),
    h('p', { class: 'muted' }, 'Rooms of nine slots. Pick a room for its tour, slot by slot.'),
    h('div', { class: 'palace' }, rooms, tour));
  const [dir, one] = await Promise.allSettled([
    api('palace'), r.arg ? api(`palace/${encodeURIComponent(r.arg)}`) : Promise.resolve(null)]);
  if (dir.status === 'fulfilled') {
    rooms.append(...dir.value.rooms.map((x) => h('a', {
      class: 'card room', href: `#/palace/${encodeURIComponent(x.room)}`, 'data-testid': 'room', 'data-room': x.room,
      'aria-current': x.room === r.arg ? 'true' : null,
    },
    h('div', { class: 'room-head' }, h('b', {}, x.room), h('span', { class: 'muted small' }, `corridor ${x.corridor}`)),
    h('div', { class: 'fill' }, bar(x.fill / (x.capacity || 9), `${x.fill} of ${x.capacity} slots`), h('span', { class: 'num small' }, `${x.fill}/${x.capacity}`)),
    h('p', { class: 'label small' }, clip(x.topic || '', 120)))));
    if (!dir.value.rooms.length) rooms.append(empty('The palace is empty: nothing remembered yet.', 'palace-empty'));
  }
  if (one.status === 'fulfilled' && one.value) {
    tour.append(roomTour(one.value));
    if (!matchMedia('(min-width: 900px)').matches) tour.scrollIntoView(); // below the rooms on a phone
  } else if (!r.arg) {
    tour.append(empty('Choose a room to walk its tour.', 'tour-hint'));
  }
  for (const x of [dir, one]) if (x.status === 'rejected') report(x.reason);
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
