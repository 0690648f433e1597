// Ranked matchmaking queues. The queue lives on the server; this module mirrors it, keeps polling
// its status while waiting, shows a proposed match (accept/decline before its deadline, on any
// page) and follows `match_found` into the game (on the node it names, see follow.js).
import { api } from './api.js';
import { live } from './ws.js';
import { matchTarget } from './follow.js';
import { h, clear, toast } from './dom.js';
import { t, errorText } from './i18n.js';

const listeners = new Set();
let pollTimer = null;

function emit() { for (const f of listeners) f(queue.state); }

function stopPolling() { clearInterval(pollTimer); pollTimer = null; }

function sinceOf(d) {
  if (d.since) { const t = Date.parse(d.since); if (!isNaN(t)) return t; }
  return Date.now() - (d.waited_seconds || 0) * 1000;
}

export const queue = {
  state: null, // {ladder, since, proposal?: {match_id, deadline (local ms), accepted}}
  onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  /** Apply a QueueStatus from the server: {state: idle|waiting|matching|matched, ...}. */
  apply(d) {
    if (!d) return;
    if (d.state === 'waiting' || d.state === 'matching' || d.state === 'proposed') {
      const since = this.state && this.state.ladder === d.ladder ? this.state.since : sinceOf(d);
      const proposal = d.state === 'proposed'
        ? { match_id: d.match_id, deadline: Date.parse(d.deadline), accepted: !!d.accepted } : null;
      this.state = { ladder: d.ladder, since, matching: d.state === 'matching', waiting: d.waiting, proposal };
      emit();
      if (!pollTimer) this.poll();
    } else if (d.state === 'matched') {
      if (this.state) this.matched(d);
    } else {
      this.state = null;
      stopPolling();
      emit();
    }
  },
  async join(ladder) {
    await live.ready(); // match_found arrives over the socket
    this.state = { ladder, since: Date.now() };
    const d = await api('POST', `/api/queue/${ladder}`, {}).catch((e) => { this.state = null; emit(); throw e; });
    this.apply(d);
  },
  async leave() {
    const ladder = this.state && this.state.ladder;
    this.state = null;
    stopPolling();
    emit();
    if (ladder) this.apply(await api('DELETE', `/api/queue/${ladder}`));
  },
  poll() {
    stopPolling();
    pollTimer = setInterval(async () => {
      if (!this.state) return stopPolling();
      try { this.apply(await api('GET', `/api/queue/${this.state.ladder}`)); } catch { /* keep waiting */ }
    }, 3000);
  },
  /** Restore the waiting state after a page reload. */
  async restore() {
    try {
      const d = await api('GET', '/api/queue');
      if (d && (d.state === 'waiting' || d.state === 'matching' || d.state === 'proposed')) this.apply(d);
    } catch { /* not logged in */ }
  },
  matched(m) {
    this.state = null;
    stopPolling();
    emit();
    const target = matchTarget(m);
    if (target) location.hash = target;
  },
  /** `match_proposed` from the server: show it until answered, called off or found. */
  proposed(m) {
    const deadline = Date.now() + (m.deadline - m.server_time);
    const since = this.state && this.state.ladder === m.ladder ? this.state.since : Date.now();
    this.state = { ladder: m.ladder, since, proposal: { match_id: m.match_id, deadline, accepted: false } };
    emit();
    if (!pollTimer) this.poll();
  },
  async answer(accept) {
    const p = this.state && this.state.proposal;
    if (!p) return;
    try {
      await live.send(accept ? 'accept_match' : 'decline_match', { match_id: p.match_id });
      if (accept && this.state && this.state.proposal === p) { p.accepted = true; emit(); }
      if (!accept) { this.state = null; stopPolling(); emit(); }
    } catch (e) { toast(errorText(e), 'error'); }
  },
  cancelled(m) {
    if (m.requeued && this.state) {
      this.state = { ...this.state, proposal: null };
      toast(t(m.reason === 'declined' ? 'match_declined_requeued' : 'match_timed_out_requeued'));
    } else {
      this.state = null;
      stopPolling();
      toast(t('match_missed'), 'error');
    }
    emit();
  },
  left() {
    this.state = null;
    stopPolling();
    emit();
    toast(t('queue_dropped'), 'error');
  },
};

// The proposed match, on whatever page the player is: a bar with a countdown, accept and decline.
const bar = h('div.match-proposal', { 'data-testid': 'match-proposal', hidden: true, role: 'alertdialog' });
let barTimer = null;
function drawBar() {
  const p = queue.state && queue.state.proposal;
  if (!p) { bar.hidden = true; clearInterval(barTimer); barTimer = null; return; }
  if (!bar.isConnected) document.body.appendChild(bar);
  bar.hidden = false;
  const secs = Math.max(0, Math.ceil((p.deadline - Date.now()) / 1000));
  clear(bar,
    h('strong', t('match_ready', { ladder: t(queue.state.ladder) })),
    h('span.countdown', { 'data-testid': 'accept-countdown' }, t('accept_within', { s: secs })),
    p.accepted
      ? h('span.muted', { 'data-testid': 'match-accepted' }, t('match_accepted_wait'))
      : [h('button.btn.primary', { 'data-testid': 'accept-match', onclick: () => queue.answer(true) }, t('accept_match')),
        h('button.btn', { 'data-testid': 'decline-match', onclick: () => queue.answer(false) }, t('decline_match'))]);
  if (!barTimer) barTimer = setInterval(drawBar, 1000);
}
queue.onChange(drawBar);

/** "1:05": the time waited. */
export function waitedText(since, now = Date.now()) {
  const secs = Math.max(0, Math.floor((now - since) / 1000));
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
}

// Queued (and no match proposed yet): a small bar on every page, "匹配中 0:12 · 取消"; a found
// game takes us to it from any page (`matched`).
const waitBar = h('div.queue-bar', { 'data-testid': 'queue-bar', hidden: true, role: 'status' });
let waitTimer = null;
function drawWaitBar() {
  const q = queue.state;
  if (!q || q.proposal) { waitBar.hidden = true; clearInterval(waitTimer); waitTimer = null; return; }
  if (!waitBar.isConnected) document.body.appendChild(waitBar);
  waitBar.hidden = false;
  clear(waitBar,
    h('span.spinner'),
    h('a', { href: '#/lobby', 'data-testid': 'queue-bar-text' }, t('queue_bar', { ladder: t(q.ladder), s: waitedText(q.since) })),
    h('button.btn.small', { type: 'button', 'data-testid': 'queue-bar-cancel', onclick: () => queue.leave().catch((e) => toast(errorText(e), 'error')) }, t('leave_queue')));
  if (!waitTimer) waitTimer = setInterval(drawWaitBar, 1000);
}
queue.onChange(drawWaitBar);

live.on('match_found', (m) => queue.matched(m));
live.on('match_proposed', (m) => queue.proposed(m));
live.on('match_cancelled', (m) => queue.cancelled(m));
live.on('queue_left', () => queue.left());
