// The logged-in identity (account or guest). The session itself lives in HttpOnly cookies;
// /api/auth/me tells who we are after a reload.
import { api, refresh } from './api.js';
import { live, setVisitorCheck } from './ws.js';

const listeners = new Set();

function normalize(d) {
  if (!d) return null;
  const a = d.account || d.user || d;
  const name = a.name ?? a.username;
  if (!name) return null;
  return { id: a.id ?? a.account_id, name, guest: !!(a.guest ?? a.is_guest) };
}

// Whether this browser had a session when it last looked (the cookies are HttpOnly): only a
// browser that logged in (or became a guest) here asks /api/auth/me, so a visitor who never did
// sees no 401 at all, not even on a first visit.
const HINT = 'siguo_session';
const hint = (v) => { try { if (v === undefined) return localStorage.getItem(HINT); localStorage.setItem(HINT, v); } catch { /* private mode */ } return null; };

export const session = {
  /** Logged out: a socket opened now watches as a visitor. */
  get visitor() { return !this.me; },
  me: null,
  onChange(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  set(me) {
    const changed = (this.me && this.me.id) !== (me && me.id);
    this.me = me;
    hint(me ? '1' : '0');
    // The socket is authenticated at its upgrade: a new identity needs a new socket.
    if (changed) live.disconnect();
    for (const f of listeners) f(me);
  },
  async load() {
    if (hint() !== '1') { this.set(null); return; }
    try {
      this.set(normalize(await api('GET', '/api/auth/me')));
    } catch {
      // Maybe only the refresh cookie is left.
      if (await refresh()) {
        try { this.set(normalize(await api('GET', '/api/auth/me', undefined, { retry: false }))); return; } catch { /* fall through */ }
      }
      this.set(null);
    }
  },
  async login(username, password) {
    const d = await api('POST', '/api/auth/login', { username, password });
    this.set(normalize(d) || normalize(await api('GET', '/api/auth/me')));
  },
  async register(username, password) {
    const d = await api('POST', '/api/auth/register', { username, password });
    this.set(normalize(d) || normalize(await api('GET', '/api/auth/me')));
  },
  async guest() {
    const d = await api('POST', '/api/auth/guest', {});
    this.set(normalize(d) || normalize(await api('GET', '/api/auth/me')));
  },
  async logout() {
    try { await api('POST', '/api/auth/logout', {}); } catch { /* already gone */ }
    this.set(null);
  },
  /** Ensure some identity exists (a guest if needed), e.g. before practice. */
  async ensure() {
    if (!this.me) await this.guest();
    return this.me;
  },
};

setVisitorCheck(() => !session.me);
