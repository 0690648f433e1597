// The live WebSocket connection (docs/protocol.md): the shared lobby socket (`/api/ws`), automatic
// reconnection with back-off, action ids with ack/error promises, and typed message listeners.
// In cluster mode a room played on another node gets a socket of its own on that node's path
// (`socketAt('/ws/n/{node}')`, see follow.js); the lobby socket stays.
import { refresh } from './api.js';

/** The protocol version we speak (docs/protocol.md §1): 2, updates carry deltas of the view. */
export const PROTOCOL = 2;

let seq = 0;
const newId = () => 'c' + Date.now().toString(36) + '-' + (++seq);

class Live {
  constructor(path = '/api/ws') {
    this.path = path;
    this.ws = null;
    this.open = false;
    this.pending = new Map(); // id -> {resolve, reject, msg}
    this.listeners = new Map(); // type -> Set(fn)
    this.statusListeners = new Set();
    this.backoff = 500;
    this.wanted = false;
    this.serverOffset = 0;
    this.hello = null;
    this.everConnected = false;
    this.timer = null;
  }
  connect() {
    this.wanted = true;
    if (this.ws && (this.ws.readyState === 0 || this.ws.readyState === 1)) return;
    // Without a session the socket is a visitor's (docs/protocol.md §1): it only watches public
    // games; the cookie, if there is one after all, wins on the server.
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + this.path
      + (this.path.includes('?') ? '&' : '?') + 'protocol=' + PROTOCOL + (visitor() ? '&visitor=1' : '');
    const ws = new WebSocket(url);
    this.ws = ws;
    ws.onopen = () => {
      this.backoff = 500;
    };
    ws.onmessage = (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      this.handle(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      const was = this.open;
      this.open = false;
      this.ws = null;
      if (was) this.emitStatus('down');
      // Fail in-flight requests that were never answered; callers may resend with the same id.
      for (const [id, p] of this.pending) { p.reject(Object.assign(new Error('disconnected'), { code: 'disconnected', id })); }
      this.pending.clear();
      if (!this.wanted) return;
      clearTimeout(this.timer);
      this.timer = setTimeout(async () => {
        // The access cookie may have expired while we were away.
        await refresh();
        this.connect();
      }, this.backoff);
      this.backoff = Math.min(this.backoff * 2, 8000);
    };
    ws.onerror = () => { /* onclose follows */ };
  }
  disconnect() {
    this.wanted = false;
    this.everConnected = false;
    this.hello = null;
    clearTimeout(this.timer);
    if (this.ws) { const ws = this.ws; this.ws = null; this.open = false; ws.close(); }
  }
  handle(msg) {
    if (msg.type === 'hello') {
      this.hello = msg;
      if (msg.server_time) this.serverOffset = msg.server_time - Date.now();
      const first = !this.everConnected;
      this.open = true;
      this.everConnected = true;
      this.emitStatus(first ? 'up' : 'reconnected');
    }
    if (msg.clock && msg.clock.server_time) this.serverOffset = msg.clock.server_time - Date.now();
    if ((msg.type === 'ack' || msg.type === 'error') && msg.id != null && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.type === 'ack') p.resolve(msg);
      else p.reject(Object.assign(new Error(msg.message || msg.code), { code: msg.code, detail: msg.detail, id: msg.id, node: msg.node, path: msg.path, room: msg.room }));
    }
    if (msg.type === 'legal_moves' && msg.id != null && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      p.resolve(msg);
    }
    if (msg.type === 'rooms' && msg.id != null && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      p.resolve(msg);
    }
    for (const fn of this.listeners.get(msg.type) || []) fn(msg);
    for (const fn of this.listeners.get('*') || []) fn(msg);
  }
  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }
  onStatus(fn) { this.statusListeners.add(fn); return () => this.statusListeners.delete(fn); }
  emitStatus(s) { for (const f of this.statusListeners) f(s); }
  /** Wait until the socket is open (after hello). */
  ready() {
    if (this.open) return Promise.resolve();
    this.connect();
    return new Promise((resolve) => {
      const off = this.onStatus((s) => { if (s === 'up' || s === 'reconnected') { off(); resolve(); } });
    });
  }
  /** Send an action; resolves with the ack (or the reply), rejects with {code, message, detail}. */
  async send(type, fields = {}, id = newId()) {
    await this.ready();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      try {
        this.ws.send(JSON.stringify({ type, id, ...fields }));
      } catch (e) {
        this.pending.delete(id);
        reject(Object.assign(new Error('disconnected'), { code: 'disconnected' }));
      }
    });
  }
  /** Send, and on a disconnect resend with the same id once reconnected (safe: ids are idempotent). */
  async sendReliable(type, fields = {}) {
    const id = newId();
    for (let attempt = 0; attempt < 5; attempt++) {
      try { return await this.send(type, fields, id); } catch (e) {
        if (e.code !== 'disconnected') throw e;
      }
    }
    throw Object.assign(new Error('disconnected'), { code: 'disconnected' });
  }
  now() { return Date.now() + this.serverOffset; }
}

export const live = new Live();

// Whether a socket opened now is a visitor's (set by session.js: nobody is logged in).
let visitor = () => false;
export function setVisitorCheck(fn) { visitor = fn; }

const nodeSockets = new Map(); // path -> Live

/** The socket for `path`: the lobby socket for `/api/ws`, else one per node path (kept). */
export function socketAt(path) {
  if (path === live.path) return live;
  if (!nodeSockets.has(path)) nodeSockets.set(path, new Live(path));
  return nodeSockets.get(path);
}

/** Close and forget a node's socket (its node is gone, or the room moved again). */
export function dropSocket(socket) {
  if (socket === live) return;
  socket.disconnect();
  if (nodeSockets.get(socket.path) === socket) nodeSockets.delete(socket.path);
}
