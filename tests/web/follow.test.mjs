// The client's part of cluster routing (static/js/follow.js): a `join_room` answered `moved` by
// the lobby's node is sent again on the socket of the node that plays the room, and only a
// `/ws/n/{node}` path is ever followed. A ranked game's `match_found` names its node, and a room
// whose node socket closed asks `GET /api/games/{id}/node`: both send the join to that node
// first. The sockets and the HTTP answers here are stand-ins that answer like the server
// (docs/protocol.md, `moved`; docs/api.md, `/node`). Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinFollowing, isNodePath, nodePath, matchTarget, locateRoom } from '../../static/js/follow.js';

/** A socket that answers `join_room` with `answer(fields)` (an ack, or a thrown error). */
function socket(name, answer) {
  const sent = [];
  return {
    name,
    sent,
    async send(type, fields) {
      sent.push({ type, fields });
      return answer(fields);
    },
  };
}

const moved = (node, room) => Object.assign(new Error('moved'), { code: 'moved', node, path: '/ws/n/' + node, room });

test('a room on this node is joined on the lobby socket', async () => {
  const lobby = socket('lobby', (f) => ({ type: 'ack', room: f.room, v: 3 }));
  const seen = [];
  const { socket: s, ack } = await joinFollowing(lobby, () => assert.fail('no other socket'), { room: 'k3m9x2qa' }, { onSocket: (x) => seen.push(x.name) });
  assert.equal(s, lobby);
  assert.equal(ack.room, 'k3m9x2qa');
  assert.deepEqual(seen, ['lobby']);
});

test('moved: the same join_room goes to the owner node, whose socket is then the room\'s', async () => {
  const lobby = socket('lobby', () => { throw moved('a', 'k3m9x2qa'); });
  const nodeA = socket('a', (f) => ({ type: 'ack', room: 'k3m9x2qa', v: 0, via: f }));
  const asked = [];
  const socketAt = (path) => { asked.push(path); return nodeA; };
  const seen = [];
  const fields = { invite: 'q7tz4kabcd23' };
  const { socket: s, ack } = await joinFollowing(lobby, socketAt, fields, { onSocket: (x) => seen.push(x.name) });
  assert.equal(s, nodeA);
  assert.deepEqual(asked, ['/ws/n/a']);
  assert.deepEqual(seen, ['lobby', 'a'], 'listeners move before the join is sent');
  assert.deepEqual(nodeA.sent, [{ type: 'join_room', fields }], 'the invite is presented to the owner');
  assert.equal(ack.room, 'k3m9x2qa');
});

test('other errors are not followed', async () => {
  const lobby = socket('lobby', () => { throw Object.assign(new Error('nope'), { code: 'not_found' }); });
  await assert.rejects(joinFollowing(lobby, () => assert.fail('not followed'), { room: 'x' }), { code: 'not_found' });
});

test('a moved loop ends after a few hops', async () => {
  const lobby = socket('lobby', () => { throw moved('a'); });
  const a = socket('a', () => { throw moved('b'); });
  const b = socket('b', () => { throw moved('a'); });
  const socketAt = (p) => (p.endsWith('/a') ? a : b);
  await assert.rejects(joinFollowing(lobby, socketAt, { game: 5 }, { hops: 3 }), { code: 'moved' });
  assert.equal(a.sent.length + b.sent.length, 3);
});

test('only a node path of this site is followed', async () => {
  for (const bad of ['//evil.example/ws', 'wss://evil.example/ws/n/a', '/ws/n/', '/ws/n/a/../../x', '/ws/n/' + 'x'.repeat(33), null]) {
    assert.equal(isNodePath(bad), false, String(bad));
    const lobby = socket('lobby', () => { throw Object.assign(new Error('moved'), { code: 'moved', path: bad }); });
    await assert.rejects(joinFollowing(lobby, () => assert.fail('not followed'), { room: 'x' }), { code: 'moved' });
  }
  assert.ok(isNodePath('/ws/n/node-1_B'));
});

test('a node that never answers fails the join as disconnected', async () => {
  const lobby = socket('lobby', () => { throw moved('dead'); });
  const dead = { send: () => new Promise(() => {}) };
  await assert.rejects(joinFollowing(lobby, () => dead, { game: 9 }, { timeoutMs: 50 }), { code: 'disconnected' });
});

test('match_found: a single server\'s game page is the room alone; a cluster node\'s names the node', () => {
  const found = { type: 'match_found', room: 'g17', game: 17, kind: 'ranked', seats: ['E'] };
  assert.equal(matchTarget({ ...found, node: 'local' }), '/room/g17');
  assert.equal(matchTarget(found), '/room/g17', 'no node: as on a single server');
  assert.equal(matchTarget({ ...found, node: 'b' }), '/room/g17?node=b');
  assert.equal(matchTarget({ game: 17, node: 'node-2' }), '/room/g17?node=node-2');
  assert.equal(matchTarget({ state: 'matched', game_id: 17, room: 'g17' }), '/room/g17', 'the queue status over HTTP');
  for (const bad of ['../x', 'a/b', '', 'x'.repeat(33), 7, null]) {
    assert.equal(matchTarget({ ...found, node: bad }), '/room/g17', String(bad));
    assert.equal(nodePath(bad), null, String(bad));
  }
  assert.equal(matchTarget({ type: 'match_found' }), null);
  assert.equal(nodePath('local'), null);
  assert.equal(nodePath('b'), '/ws/n/b');
});

test('a named node: the join goes to its socket first, and the lobby is not asked', async () => {
  const lobby = socket('lobby', () => assert.fail('the lobby is not asked'));
  const nodeB = socket('b', () => ({ type: 'ack', room: 'g17', v: 0 }));
  const asked = [];
  const seen = [];
  const { socket: s, ack } = await joinFollowing(lobby, (p) => { asked.push(p); return nodeB; }, { room: 'g17' },
    { path: nodePath('b'), onSocket: (x) => seen.push(x.name), timeoutMs: 1000 });
  assert.equal(s, nodeB);
  assert.equal(ack.room, 'g17');
  assert.deepEqual(asked, ['/ws/n/b']);
  assert.deepEqual(seen, ['b']);
  assert.deepEqual(nodeB.sent, [{ type: 'join_room', fields: { room: 'g17' } }]);
});

test('no node, local, or a path that is not a node path: joined on the lobby socket as before', async () => {
  for (const path of [null, nodePath('local'), '//evil.example/ws/n/b', '/api/ws']) {
    const lobby = socket('lobby', (f) => ({ type: 'ack', room: f.room, v: 0 }));
    const { socket: s } = await joinFollowing(lobby, () => assert.fail('no other socket'), { room: 'g17' }, { path });
    assert.equal(s, lobby, String(path));
    assert.equal(lobby.sent.length, 1);
  }
});

test('a named node that moved the game on: its moved answer is followed', async () => {
  const lobby = socket('lobby', () => assert.fail('the lobby is not asked'));
  const b = socket('b', () => { throw moved('c'); });
  const c = socket('c', () => ({ type: 'ack', room: 'g17', v: 4 }));
  const { socket: s } = await joinFollowing(lobby, (p) => (p.endsWith('/b') ? b : c), { room: 'g17' }, { path: '/ws/n/b' });
  assert.equal(s, c);
  assert.equal(b.sent.length, 1);
});

test('a named node that cannot be reached: the lobby is asked instead, and its moved followed', async () => {
  const lobby = socket('lobby', () => { throw moved('c'); });
  const dead = { name: 'b', sent: [], send(type, fields) { this.sent.push({ type, fields }); return new Promise(() => {}); } };
  const c = socket('c', () => ({ type: 'ack', room: 'g17', v: 0 }));
  const seen = [];
  const { socket: s } = await joinFollowing(lobby, (p) => (p.endsWith('/b') ? dead : c), { room: 'g17' },
    { path: '/ws/n/b', timeoutMs: 50, onSocket: (x) => seen.push(x.name) });
  assert.equal(s, c);
  assert.deepEqual(seen, ['b', 'lobby', 'c']);
  // Other errors of the named node are the answer, not a reason to ask elsewhere.
  const full = socket('b', () => { throw Object.assign(new Error('no'), { code: 'not_found' }); });
  await assert.rejects(joinFollowing(lobby, () => full, { room: 'g17' }, { path: '/ws/n/b' }), { code: 'not_found' });
  // The fallback counts as a hop: with none left, the named node's failure is the answer.
  const down = { send: () => Promise.reject(Object.assign(new Error('disconnected'), { code: 'disconnected' })) };
  await assert.rejects(joinFollowing(lobby, () => down, { room: 'g17' }, { path: '/ws/n/b', hops: 0 }), { code: 'disconnected' });
});

/** A stand-in for `api('GET', url)`: answers from `table` (a 404 for the rest), records the urls. */
function http(table) {
  const asked = [];
  const get = async (url) => {
    asked.push(url);
    if (!(url in table)) throw Object.assign(new Error('not found'), { code: 'not_found', status: 404 });
    const r = table[url];
    if (r instanceof Error) throw r;
    return r;
  };
  return { asked, get };
}

test('after a drop the game\'s node is asked over HTTP; the room\'s before its game starts', async () => {
  const h = http({ '/api/games/17/node': { node: 'c', path: '/ws/n/c' }, '/api/rooms/k3m9x2qa/node': { node: 'b', path: '/ws/n/b' } });
  assert.equal(await locateRoom(h.get, { game: 17, room: 'g17' }), '/ws/n/c');
  assert.equal(await locateRoom(h.get, { game: null, room: 'k3m9x2qa' }), '/ws/n/b');
  assert.deepEqual(h.asked, ['/api/games/17/node', '/api/rooms/k3m9x2qa/node']);
});

test('no usable answer about the node: null, so that the lobby is asked', async () => {
  const h = http({
    '/api/games/1/node': { node: 'local', path: '/ws/n/local' },
    '/api/games/2/node': { node: 'x', path: 'wss://evil.example/ws/n/x' },
    '/api/games/3/node': Object.assign(new Error('offline'), { code: 'network' }),
  });
  for (const game of [1, 2, 3, 4]) assert.equal(await locateRoom(h.get, { game }), null, 'game ' + game);
  assert.equal(await locateRoom(h.get, { room: '../../api/me' }), null);
  assert.equal(await locateRoom(h.get, {}), null);
  assert.deepEqual(h.asked, ['/api/games/1/node', '/api/games/2/node', '/api/games/3/node', '/api/games/4/node'],
    'nothing asked without a game or a plain room id');
});

test('a room socket closed as moved: the new owner is asked and the room joined there, not through the lobby', async () => {
  const h = http({ '/api/games/17/node': { node: 'c', path: '/ws/n/c' } });
  const lobby = socket('lobby', () => assert.fail('the lobby is not asked'));
  const c = socket('c', () => ({ type: 'ack', room: 'g17', v: 12 }));
  const asked = [];
  const path = await locateRoom(h.get, { game: 17, room: 'g17' });
  const { socket: s, ack } = await joinFollowing(lobby, (p) => { asked.push(p); return c; }, { room: 'g17' }, { path, timeoutMs: 1000 });
  assert.equal(s, c);
  assert.equal(ack.v, 12);
  assert.deepEqual(asked, ['/ws/n/c']);
});
