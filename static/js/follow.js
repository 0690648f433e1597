// Cluster mode (docs/protocol.md, `moved`): a room is played on one node, and its socket must be
// that node's. `join_room` sent on the lobby socket of another node is answered with a `moved`
// error naming the node and its socket path (`/ws/n/{node}`, routed there by the load balancer);
// the client opens (or reuses) a socket on that path and sends the same `join_room` there. The
// lobby socket stays open. Pure logic: the sockets are passed in (see ws.js), so node tests can
// drive it.
//
// Two more ways to learn the node before asking the lobby: `match_found` names the node of a new
// ranked game (`node`; `local` on a single server), and after a room's socket closed (4009
// "moved", or its node went away) `GET /api/games/{id}/node` (or `/api/rooms/{room}/node`) says
// where the room is now. Either gives `joinFollowing` a `path` to try first.

/** A path the server may send us to: `/ws/n/` and a plain node id (never another host). */
export function isNodePath(path) {
  return typeof path === 'string' && /^\/ws\/n\/[A-Za-z0-9_-]{1,32}$/.test(path);
}

/** The socket path of `node` (`/ws/n/{node}`), or null for `local` (a single server: the lobby
 * socket plays every room), a missing node or one that is not a plain node id. */
export function nodePath(node) {
  if (typeof node !== 'string' || node === 'local') return null;
  const path = '/ws/n/' + node;
  return isNodePath(path) ? path : null;
}

/** Where the page of a `match_found` game is: `/room/g17`, with `?node=b` when it is played on a
 * node of a cluster (the room page then joins through that node's socket first). */
export function matchTarget(m) {
  const room = m.room || (m.game != null ? 'g' + m.game : m.game_id != null ? 'g' + m.game_id : null);
  if (!room) return null;
  const path = nodePath(m.node);
  return '/room/' + room + (path ? '?node=' + encodeURIComponent(m.node) : '');
}

/**
 * Where a room is played now, asked over HTTP with `get(url)` (resolves with the JSON answer):
 * `GET /api/games/{id}/node` once its game is known, else `GET /api/rooms/{room}/node`. Resolves
 * with the node's socket path, or null — `local`, no answer (404, network) or a path that is not a
 * node path — and then the caller joins through the lobby, which answers `moved` if need be.
 */
export async function locateRoom(get, { game = null, room = null } = {}) {
  let url;
  if (Number.isSafeInteger(game)) url = `/api/games/${game}/node`;
  else if (typeof room === 'string' && /^[\w-]{1,64}$/.test(room)) url = `/api/rooms/${room}/node`;
  else return null;
  try {
    const r = await get(url);
    return r && r.node !== 'local' && isNodePath(r.path) ? r.path : null;
  } catch {
    return null;
  }
}

/** Reject after `ms` with a `disconnected` error (a node that does not answer). */
function timeout(promise, ms) {
  if (!ms) return promise;
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('disconnected'), { code: 'disconnected' })), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * Send `join_room` with `fields` on `lobby` — or first on `socketAt(path)` when `path` is a node
 * path (the node `match_found` or `locateRoom` named) —; on `moved`, follow to `socketAt(path)` and
 * send it again there (at most `hops` times). A named node that cannot be reached (`disconnected`,
 * or no answer within `timeoutMs`) is given up for the lobby, once, as a hop. `onSocket(socket)`
 * is called before each join is sent, so that the room's listeners are on the socket before its
 * first room message. Resolves with `{socket, ack}`: the socket the room lives on, and the
 * `join_room` ack.
 */
export async function joinFollowing(lobby, socketAt, fields, { path = null, onSocket = () => {}, hops = 3, timeoutMs = 0 } = {}) {
  const named = isNodePath(path);
  let socket = named ? socketAt(path) : lobby;
  for (let hop = 0; ; hop++) {
    onSocket(socket);
    try {
      const ack = await timeout(socket.send('join_room', fields), timeoutMs);
      return { socket, ack };
    } catch (e) {
      if (hop >= hops) throw e;
      if (e.code === 'disconnected' && named && hop === 0 && socket !== lobby) {
        socket = lobby;
        continue;
      }
      if (e.code !== 'moved') throw e;
      if (!isNodePath(e.path)) throw Object.assign(new Error('moved to an unknown place'), { code: 'moved' });
      socket = socketAt(e.path);
    }
  }
}
