// The client's part of cluster routing (static/js/follow.js): a `join_room` answered `moved` by
// the lobby's node is sent again on the socket of the node that plays the room, and only a
// `/ws/n/{node}` path is ever followed. The sockets here are stand-ins that answer like the
// server (docs/protocol.md, `moved`). Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinFollowing, isNodePath } from '../../static/js/follow.js';

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
