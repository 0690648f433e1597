// Ranked matchmaking queues. The queue lives on the server; this module mirrors it, keeps polling
// its status while waiting, and follows `match_found` into the game.
import { api } from './api.js';
import { live } from './ws.js';

const listeners = new Set();
let pollTimer = null;

function emit() { for (const f of listeners) f(queue.state); }

function stopPolling() { clearInterval(pollTimer); pollTimer = null; }

export const queue = {
  state: null, // {ladder, since}
  onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  async join(ladder) {
    await live.ready(); // match_found arrives over the socket
    const d = await api('POST', `/api/queue/${ladder}`, {});
    const waited = d && (d.waited_ms ?? (d.waiting_secs != null ? d.waiting_secs * 1000 : 0));
    this.state = { ladder, since: Date.now() - (waited || 0) };
    emit();
    this.poll();
    if (d && d.match) this.matched(d.match);
  },
  async leave() {
    const ladder = this.state && this.state.ladder;
    this.state = null;
    stopPolling();
    emit();
    if (ladder) await api('DELETE', `/api/queue/${ladder}`);
  },
  poll() {
    stopPolling();
    pollTimer = setInterval(async () => {
      if (!this.state) return stopPolling();
      try {
        const d = await api('GET', `/api/queue/${this.state.ladder}`);
        if (d && d.match) this.matched(d.match);
        else if (d && d.queued === false && !d.match) { this.state = null; stopPolling(); emit(); }
      } catch { /* keep waiting */ }
    }, 3000);
  },
  /** Restore the waiting state after a page reload. */
  async restore() {
    for (const ladder of ['ranked', 'ranked_dual']) {
      try {
        const d = await api('GET', `/api/queue/${ladder}`);
        if (d && (d.queued || d.waiting)) {
          const waited = d.waited_ms ?? (d.waiting_secs != null ? d.waiting_secs * 1000 : 0);
          this.state = { ladder, since: Date.now() - (waited || 0) };
          emit();
          this.poll();
          return;
        }
      } catch { /* not logged in or no queue */ }
    }
  },
  matched(m) {
    this.state = null;
    stopPolling();
    emit();
    const room = m.room || (m.game != null ? 'g' + m.game : null);
    if (room) location.hash = '/room/' + room;
  },
};

live.on('match_found', (m) => queue.matched(m));
