// Ranked matchmaking queues. The queue lives on the server; this module mirrors it, keeps polling
// its status while waiting, and follows `match_found` into the game.
import { api } from './api.js';
import { live } from './ws.js';

const listeners = new Set();
let pollTimer = null;

function emit() { for (const f of listeners) f(queue.state); }

function stopPolling() { clearInterval(pollTimer); pollTimer = null; }

function sinceOf(d) {
  if (d.since) { const t = Date.parse(d.since); if (!isNaN(t)) return t; }
  return Date.now() - (d.waited_seconds || 0) * 1000;
}

export const queue = {
  state: null, // {ladder, since}
  onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  /** Apply a QueueStatus from the server: {state: idle|waiting|matching|matched, ...}. */
  apply(d) {
    if (!d) return;
    if (d.state === 'waiting' || d.state === 'matching') {
      const since = this.state && this.state.ladder === d.ladder ? this.state.since : sinceOf(d);
      this.state = { ladder: d.ladder, since, matching: d.state === 'matching', waiting: d.waiting };
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
      if (d && (d.state === 'waiting' || d.state === 'matching')) this.apply(d);
    } catch { /* not logged in */ }
  },
  matched(m) {
    this.state = null;
    stopPolling();
    emit();
    const room = m.room || (m.game != null ? 'g' + m.game : m.game_id != null ? 'g' + m.game_id : null);
    if (room) location.hash = '/room/' + room;
  },
};

live.on('match_found', (m) => queue.matched(m));
