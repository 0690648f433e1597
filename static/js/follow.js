// Cluster mode (docs/protocol.md, `moved`): a room is played on one node, and its socket must be
// that node's. `join_room` sent on the lobby socket of another node is answered with a `moved`
// error naming the node and its socket path (`/ws/n/{node}`, routed there by the load balancer);
// the client opens (or reuses) a socket on that path and sends the same `join_room` there. The
// lobby socket stays open. Pure logic: the sockets are passed in (see ws.js), so node tests can
// drive it.

/** A path the server may send us to: `/ws/n/` and a plain node id (never another host). */
export function isNodePath(path) {
  return typeof path === 'string' && /^\/ws\/n\/[A-Za-z0-9_-]{1,32}$/.test(path);
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
 * Send `join_room` with `fields` on `lobby`; on `moved`, follow to `socketAt(path)` and send it
 * again there (at most `hops` times). `onSocket(socket)` is called before each join is sent, so
 * that the room's listeners are on the socket before its first room message. Resolves with
 * `{socket, ack}`: the socket the room lives on, and the `join_room` ack.
 */
export async function joinFollowing(lobby, socketAt, fields, { onSocket = () => {}, hops = 3, timeoutMs = 0 } = {}) {
  let socket = lobby;
  for (let hop = 0; ; hop++) {
    onSocket(socket);
    try {
      const ack = await timeout(socket.send('join_room', fields), timeoutMs);
      return { socket, ack };
    } catch (e) {
      if (e.code !== 'moved' || hop >= hops) throw e;
      if (!isNodePath(e.path)) throw Object.assign(new Error('moved to an unknown place'), { code: 'moved' });
      socket = socketAt(e.path);
    }
  }
}
