// The room page's reducer (static/js/room/state.js) under node: every server message it handles
// (docs/protocol.md) and every local action, with their edge cases, and the selectors the views
// draw from. No browser, no server. Run: node --test tests/web/
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import * as S from '../../static/js/room/state.js';
import { STATIONS } from '../../static/js/board.js';
import { replayRecord } from '../../static/js/replay-engine.js';
import { frozen, run } from './support.mjs';

const { reduce, initialState } = S;
const ROOM = 'k3m9x2qa';

const OPTIONS = {
  info_mode: 'four_dark', move_seconds: 20, deploy_seconds: 90, reconnect_seconds: 60,
  max_steps: 300, max_skips: 4, bombs_front_row: false, flag_capture: 'any', mines: 'invincible',
};

function roomMsg(over = {}) {
  return {
    type: 'room', room: ROOM, kind: 'casual', public: true, invite: 'Q7TZ4K', host: 'alice',
    options: OPTIONS, phase: 'waiting', game: null,
    seats: {
      N: { account_id: 7, name: 'alice', guest: false, bot: null, ready: true, online: true },
      E: { account_id: null, name: 'Bot (greedy)', guest: false, bot: 'greedy', ready: true, online: true },
      S: null,
      W: { account_id: 9, name: 'guest-4f2a', guest: true, bot: null, ready: false, online: false },
    },
    spectators: 2, you: { seats: ['N'], host: true },
    ...over,
  };
}

const snapSeats = () => ({
  N: { account_id: 7, name: 'alice', bot: null, online: true, escaped: false },
  E: { account_id: null, name: 'Bot', bot: 'greedy', online: true, escaped: false },
  S: { account_id: 8, name: 'bob', bot: null, online: false, escaped: true },
  W: { account_id: 9, name: 'carol', bot: null, online: true, escaped: false },
});

function view(over = {}) {
  return {
    turn: 'S', pieces: { Sa1: 'S9', Sa2: 'S?', Nc3: 'N?', Wb6: 'WF', Nb6: 'N?' }, options: OPTIONS,
    eliminated: [], skips: { N: 0, E: 2, S: 0, W: 0 }, steps: 37,
    status: { state: 'ongoing', winner: null, reason: null }, flags_revealed: ['W'], draw_offer: null,
    ...over,
  };
}

/** A ranked game's results as the server sends them (docs/protocol.md §8). */
const RESULTS = {
  N: { outcome: 'win', points: 3 }, E: { outcome: 'surrender', points: 0 },
  S: { outcome: 'win', points: 3 }, W: { outcome: 'escape', points: -2 },
};

function snapshot(over = {}) {
  return {
    type: 'snapshot', room: ROOM, game: 17, v: 42, phase: 'battle', seats: snapSeats(), you: { seats: ['S'] },
    view: view(), deployments: null, confirmed: ['N', 'E', 'S', 'W'],
    clock: { phase: 'battle', seat: 'S', deadline: 1_000_030_000, remaining_ms: 21500, server_time: 1_000_008_500 },
    legal_moves: { Sa1: ['Ca1', 'Sa2'], Sc1: ['Cb1'] },
    last_events: [
      { type: 'moved', seat: 'W', from: 'Wa1', to: 'Wa2', path: ['Wa1', 'Wa2'], combat: null },
      { type: 'moved', seat: 'E', from: 'Ea1', to: 'Cc1', path: ['Ea1', 'Cc1'], combat: null },
      { type: 'turn', seat: 'S', steps: 37 },
    ],
    ...over,
  };
}

/** Own deployment of a seat: every non-camp station of its region, rank '5'. */
function pieces(seat) {
  const p = {};
  for (const s of STATIONS.values()) if (s.seat === seat && s.kind !== 'camp') p[s.name] = '5';
  return p;
}

function deploySnapshot(over = {}) {
  return snapshot({
    v: 3, phase: 'deploying', view: null, confirmed: [], legal_moves: undefined, last_events: [],
    clock: { phase: 'deploying', seat: null, deadline: 1_000_090_000, remaining_ms: 90000, server_time: 1_000_000_000 },
    deployments: { S: { seat: 'S', pieces: pieces('S') } },
    ...over,
  });
}

const update = (over = {}) => ({ type: 'update', room: ROOM, game: 17, v: 43, from_v: 42, events: [], ...over });

const fresh = () => initialState(ROOM);
const inBattle = () => run(fresh(), roomMsg({ phase: 'battle', game: 17, you: { seats: ['S'] } }), snapshot());
const inDeploy = () => run(fresh(), roomMsg({ phase: 'deploying', game: 17, you: { seats: ['S'] } }), deploySnapshot());

describe('initial state and routing', () => {
  test('the initial state knows the room of the route and nothing else', () => {
    const s = initialState(ROOM);
    assert.equal(s.roomId, ROOM);
    assert.equal(s.phase, null);
    assert.deepEqual(s.effects, []);
    assert.deepEqual(S.mySeats(s), []);
    assert.equal(initialState().roomId, null);
  });

  test('unknown message types change nothing (the same state object)', () => {
    const s = frozen(fresh());
    assert.equal(reduce(s, { type: 'pong' }), s);
    assert.equal(reduce(s, { type: 'rooms', rooms: [] }), s);
  });

  for (const msg of [
    roomMsg({ room: 'other' }), snapshot({ room: 'other' }), update({ room: 'other' }),
    { type: 'deployment', room: 'other', seat: 'S', pieces: {}, confirmed: true },
    { type: 'presence', room: 'other', seats: { N: false } },
    { type: 'chat', room: 'other', from: 'x', text: 'hi' },
    { type: 'kicked', room: 'other' }, { type: 'room_closed', room: 'other' },
    { type: 'chat', from: 'x', text: 'no room field' },
  ]) {
    test(`a ${msg.type} message of another room is ignored (${msg.room || 'none'})`, () => {
      const s = inBattle();
      assert.equal(reduce(s, msg), s);
    });
  }

  test('a message for our room before we know our room id is ignored', () => {
    const s = frozen(initialState(null));
    assert.equal(reduce(s, snapshot()), s);
    assert.equal(reduce(s, roomMsg()), s, 'not joining: the room message is not ours');
  });

  test('effects last one transition: an ignored message clears them', () => {
    const s = run(fresh(), { type: 'kicked', room: ROOM });
    assert.equal(s.effects.length, 2);
    const next = reduce(s, { type: 'pong' });
    assert.deepEqual(next.effects, []);
    assert.equal(next.room, s.room);
  });
});

describe('room', () => {
  test('stores the room, our seats, the game and the presence of every seated person', () => {
    const s = run(fresh(), roomMsg());
    assert.equal(s.room.invite, 'Q7TZ4K');
    assert.deepEqual(s.you, { seats: ['N'], host: true });
    assert.equal(s.phase, 'waiting');
    assert.equal(s.game, null);
    assert.deepEqual(s.presence, { N: true, E: true, W: false });
    assert.deepEqual(s.effects, []);
  });

  test('while joining, the first room message tells the room id (join by invite or game)', () => {
    const joining = run(initialState(null), { type: 'ui/joining', joining: true }, roomMsg({ room: 'g17' }));
    assert.equal(joining.roomId, 'g17');
    assert.equal(joining.room.room, 'g17');
    const later = run(joining, { type: 'ui/joining', joining: false }, roomMsg({ room: 'zzz' }));
    assert.equal(later.roomId, 'g17', 'after the join, another room is not adopted');
    assert.equal(later.room.room, 'g17');
  });

  test('a room without `you` keeps what we knew, a room without game keeps the game', () => {
    const s = run(fresh(), roomMsg({ game: 17 }), roomMsg({ you: undefined, game: null }));
    assert.deepEqual(s.you.seats, ['N']);
    assert.equal(s.game, 17);
  });

  test('the game starting under our eyes asks for a snapshot', () => {
    const s = run(fresh(), roomMsg(), roomMsg({ phase: 'deploying', game: 17 }));
    assert.equal(s.phase, 'deploying');
    assert.equal(s.game, 17);
    assert.deepEqual(s.effects, [{ type: 'send', msg: 'resync', fields: { room: ROOM } }]);
  });

  test('joining a running game takes its phase from the room without asking twice', () => {
    const s = run(fresh(), roomMsg({ phase: 'battle', game: 17 }));
    assert.equal(s.phase, 'battle');
    assert.deepEqual(s.effects, [], 'the join itself brings the snapshot');
  });

  test('later phases come from the updates, not from the room', () => {
    const s = run(inDeploy(), roomMsg({ phase: 'finished', game: 17, you: { seats: ['S'] } }));
    assert.equal(s.phase, 'deploying');
    assert.equal(s.room.phase, 'finished');
  });

  test('seat changes update the presence, empty seats leave it as it was', () => {
    const s = run(fresh(), roomMsg(), roomMsg({ seats: { N: { name: 'alice', online: false }, E: null, S: null, W: null } }));
    assert.deepEqual(s.presence, { N: false, E: true, W: false });
  });
});

describe('snapshot', () => {
  test('replaces the game state', () => {
    const s = inBattle();
    assert.equal(s.game, 17);
    assert.equal(s.v, 42);
    assert.equal(s.phase, 'battle');
    assert.deepEqual(s.you, { seats: ['S'] });
    assert.equal(s.view.steps, 37);
    assert.equal(s.clock.seat, 'S');
    assert.deepEqual(s.legal, { Sa1: ['Ca1', 'Sa2'], Sc1: ['Cb1'] });
    assert.deepEqual(s.confirmed, ['N', 'E', 'S', 'W']);
    assert.deepEqual(s.deployments, {});
    assert.equal(s.seats.S.name, 'bob');
    assert.deepEqual(s.effects, []);
  });

  test('presence and escapes of every seat', () => {
    const s = inBattle();
    assert.deepEqual(s.presence, { N: true, E: true, S: false, W: true });
    assert.deepEqual(s.escaped, { N: false, E: false, S: true, W: false });
  });

  test('the last move is the last `moved` of last_events; without one the old one stays', () => {
    assert.deepEqual(inBattle().lastPath, ['Ea1', 'Cc1']);
    const s = run(inBattle(), snapshot({ last_events: [{ type: 'turn', seat: 'S', steps: 37 }] }));
    assert.deepEqual(s.lastPath, ['Ea1', 'Cc1']);
    const none = run(fresh(), snapshot({ last_events: undefined }));
    assert.deepEqual(none.lastPath, []);
  });

  test('drops the selection, defaults legal moves and confirmations', () => {
    const s = run(inBattle(), { type: 'ui/click', station: 'Sa1' });
    assert.equal(s.selected, 'Sa1');
    const after = run(s, snapshot({ legal_moves: undefined, confirmed: undefined, you: undefined }));
    assert.equal(after.selected, null);
    assert.deepEqual(after.legal, {});
    assert.deepEqual(after.confirmed, []);
    assert.deepEqual(after.you, { seats: ['S'] }, 'no `you`: kept');
  });

  test('deployment phase: own deployments only', () => {
    const s = inDeploy();
    assert.equal(s.phase, 'deploying');
    assert.equal(s.view, null);
    assert.deepEqual(Object.keys(s.deployments), ['S']);
    assert.equal(Object.keys(s.deployments.S.pieces).length, 25);
  });

  test('a snapshot of a finished ranked game brings its results; nothing is fetched', () => {
    const over = view({ status: { state: 'won', winner: 'NS', reason: 'elimination' } });
    const s = run(inBattle(), snapshot({ phase: 'finished', view: over, results: RESULTS }));
    assert.deepEqual(s.effects, []);
    assert.deepEqual(s.results, RESULTS);
    assert.deepEqual(s.points, { points: 3, outcome: 'win' }, 'ours: S');
    // a casual game's snapshot has none; a snapshot of another game forgets the old ones
    assert.equal(run(inBattle(), snapshot({ phase: 'finished', view: over })).results, null);
    const next = run(s, snapshot({ game: 18 }));
    assert.equal(next.results, null);
    assert.equal(next.points, null);
    assert.deepEqual(run(s, snapshot()).points, { points: 3, outcome: 'win' }, 'same game: kept');
  });
});

describe('deployment', () => {
  const dep = (seat, over = {}) => ({ type: 'deployment', room: ROOM, game: 17, seat, confirmed: false, pieces: { [seat + 'a1']: '3' }, ...over });

  test('replaces that seat\'s deployment and keeps the others', () => {
    const s = run(inDeploy(), dep('N'));
    assert.deepEqual(s.deployments.N, { seat: 'N', pieces: { Na1: '3' } });
    assert.equal(Object.keys(s.deployments.S.pieces).length, 25);
    assert.deepEqual(s.confirmed, []);
  });

  test('a confirmed deployment confirms its seat once', () => {
    const s = run(inDeploy(), dep('S', { confirmed: true }), dep('S', { confirmed: true }));
    assert.deepEqual(s.confirmed, ['S']);
  });
});

describe('update', () => {
  test('a gap asks for a resync from our version and changes nothing else', () => {
    const s = inBattle();
    const next = run(s, update({ v: 50, from_v: 45, view: view({ steps: 99 }) }));
    assert.deepEqual(next.effects, [{ type: 'send', msg: 'resync', fields: { room: ROOM, v: 42 } }]);
    assert.equal(next.v, 42);
    assert.equal(next.view, s.view);
    assert.equal(S.updateFits(s, update({ v: 50, from_v: 45 })), false);
  });

  test('an update we already have is ignored', () => {
    const s = inBattle();
    assert.equal(reduce(s, update({ v: 42, from_v: 41 })), s);
    assert.equal(reduce(s, update({ v: 40, from_v: 39 })), s);
  });

  test('without a version yet, any update applies', () => {
    const s = run(fresh(), roomMsg({ phase: 'deploying', game: 17 }));
    assert.equal(S.updateFits(s, update({ v: 7, from_v: 3 })), true);
    const next = run(s, update({ v: 7, from_v: 3, events: [{ type: 'deploy_confirmed', seat: 'W' }] }));
    assert.equal(next.v, 7);
    assert.deepEqual(next.confirmed, ['W']);
  });

  test('a move: version, view, clock, legal moves, last path, log; the selection is dropped', () => {
    const s = run(inBattle(), { type: 'ui/click', station: 'Sc1' });
    const clock = { phase: 'battle', seat: 'W', deadline: 1_000_050_000, remaining_ms: 20000, server_time: 1_000_030_000 };
    const moved = { type: 'moved', seat: 'S', from: 'Sc1', to: 'Cb1', path: ['Sc1', 'Cb1'], combat: 'attacker_won' };
    const next = run(s, update({ events: [moved, { type: 'turn', seat: 'W', steps: 38 }], view: view({ turn: 'W', steps: 38 }), clock }));
    assert.equal(S.updateFits(s, update()), true);
    assert.equal(next.v, 43);
    assert.equal(next.view.turn, 'W');
    assert.equal(next.clock, clock);
    assert.deepEqual(next.legal, {}, 'no legal_moves: not ours to move');
    assert.deepEqual(next.lastPath, ['Sc1', 'Cb1']);
    assert.deepEqual(next.log.map(({ no, attacker, defender, ...ev }) => ev), [moved], '`turn` is not logged');
    assert.equal(next.selected, null);
    assert.equal(next.phase, 'battle');
    assert.deepEqual(next.effects, [{ type: 'sound', name: 'combat' }]);
  });

  test('a move without a path draws from → to; the last of several moves is kept', () => {
    const next = run(inBattle(), update({
      v: 45, from_v: 42,
      events: [
        { type: 'moved', seat: 'S', from: 'Sa1', to: 'Sa2', combat: null },
        { type: 'moved', seat: 'W', from: 'Wa1', to: 'Ca1', combat: null },
      ],
    }));
    assert.deepEqual(next.lastPath, ['Wa1', 'Ca1']);
    assert.equal(next.log.length, 2);
  });

  test('view: absent keeps the old one, null clears it; no clock keeps the clock', () => {
    const s = inBattle();
    const kept = run(s, update());
    assert.equal(kept.view, s.view);
    assert.equal(kept.clock, s.clock);
    const cleared = run(s, update({ view: null }));
    assert.equal(cleared.view, null);
  });

  test('a delta (protocol 2) changes only the stations and fields it names', () => {
    const s = inBattle();
    const moved = { type: 'moved', seat: 'S', from: 'Sa1', to: 'Sa2', combat: 'attacker_won' };
    const next = run(s, update({
      events: [moved, { type: 'turn', seat: 'W', steps: 38 }],
      delta: { pieces: { Sa1: null, Sa2: 'S9' }, turn: 'W', steps: 38 },
    }));
    assert.deepEqual(next.view, view({ turn: 'W', steps: 38, pieces: { Sa2: 'S9', Nc3: 'N?', Wb6: 'WF', Nb6: 'N?' } }));
    assert.equal(next.v, 43);
    assert.equal(next.moveNo, 38);
    assert.deepEqual(s.view, view(), 'the old view is not changed');
    // a nullable field set to null, a counter, the end of the game with its full reveal
    const end = run(next, update({
      v: 44, from_v: 43,
      delta: {
        pieces: { Nc3: 'N5', Nb6: 'NF' }, draw_offer: null, skips: { N: 0, E: 3, S: 0, W: 0 },
        status: { state: 'won', winner: 'NS', reason: 'flags_captured' }, fallen: { W: { Wb6: 'WF' } },
      },
    }));
    assert.deepEqual(end.view.pieces, { Sa2: 'S9', Nc3: 'N5', Wb6: 'WF', Nb6: 'NF' });
    assert.equal(end.view.skips.E, 3);
    assert.equal(end.view.draw_offer, null);
    assert.equal(end.view.turn, 'W');
    assert.deepEqual(end.view.fallen, { W: { Wb6: 'WF' } });
    assert.equal(end.phase, 'finished');
  });

  test('deltas after a snapshot give the next full view; one that does not fit asks for a resync', () => {
    let s = run(fresh(), roomMsg({ phase: 'battle', game: 17 }), snapshot());
    s = run(s, update({ delta: { pieces: { Nc3: null, Nc4: 'N?' }, turn: 'E', steps: 38 } }));
    s = run(s, update({ v: 44, from_v: 43, delta: { pieces: { Sa2: 'S?' }, turn: 'S', steps: 39 } }));
    assert.deepEqual(s.view, view({ turn: 'S', steps: 39, pieces: { Sa1: 'S9', Sa2: 'S?', Nc4: 'N?', Wb6: 'WF', Nb6: 'N?' } }));
    const gap = run(s, update({ v: 47, from_v: 46, delta: { pieces: { Sa1: null } } }));
    assert.deepEqual(gap.effects, [{ type: 'send', msg: 'resync', fields: { room: ROOM, v: 44 } }]);
    assert.equal(gap.view, s.view);
  });

  test('a delta without a view to apply it to asks for a snapshot', () => {
    const s = run(fresh(), roomMsg({ phase: 'battle', game: 17 }));
    const next = run(s, update({ delta: { pieces: { Sa1: null } } }));
    assert.deepEqual(next.effects, [{ type: 'send', msg: 'resync', fields: { room: ROOM } }]);
    assert.equal(next.view, null);
  });

  test('applyDelta: a station emptied, one filled, fields replaced', () => {
    const v = { pieces: { A: 'S9', B: 'N?' }, turn: 'S', steps: 1, draw_offer: 'N' };
    assert.deepEqual(S.applyDelta(v, { pieces: { A: null, C: 'S9' }, steps: 2, draw_offer: null }),
      { pieces: { B: 'N?', C: 'S9' }, turn: 'S', steps: 2, draw_offer: null });
    assert.deepEqual(v.pieces, { A: 'S9', B: 'N?' });
  });

  test('deployment confirmations and the start of the battle', () => {
    let s = run(inDeploy(), update({ v: 4, from_v: 3, events: [{ type: 'deploy_confirmed', seat: 'W' }] }));
    s = run(s, update({ v: 5, from_v: 4, events: [{ type: 'deploy_confirmed', seat: 'W' }, { type: 'deploy_confirmed', seat: 'S' }] }));
    assert.deepEqual(s.confirmed, ['W', 'S']);
    assert.equal(s.phase, 'deploying');
    const battle = run(s, update({
      v: 6, from_v: 5,
      events: [{ type: 'battle_started' }, { type: 'turn', seat: 'E', steps: 0 }],
      view: view({ turn: 'E', steps: 0 }),
      clock: { phase: 'battle', seat: 'E', deadline: 1, remaining_ms: 1, server_time: 0 },
    }));
    assert.equal(battle.phase, 'battle');
    assert.deepEqual(battle.log.map(e => e.type), ['deploy_confirmed', 'deploy_confirmed', 'deploy_confirmed', 'battle_started']);
  });

  test('battle_started without a clock still starts the battle', () => {
    const s = run(inDeploy(), update({ v: 4, from_v: 3, events: [{ type: 'battle_started' }] }));
    assert.equal(s.phase, 'battle');
  });

  test('the clock\'s phase is the phase', () => {
    const s = run(inDeploy(), update({ v: 4, from_v: 3, clock: { phase: 'battle', seat: 'N', deadline: 5, remaining_ms: 5, server_time: 0 } }));
    assert.equal(s.phase, 'battle');
  });

  test('skips, revealed flags, eliminations, escapes, draw offers and their answers go to the log; flags and eliminations to the chat', () => {
    const events = [
      { type: 'skipped', seat: 'E', skips: 2 },
      { type: 'flag_revealed', seat: 'W', station: 'Wb6' },
      { type: 'eliminated', seat: 'W', reason: 'too_many_skips' },
      { type: 'escaped', seat: 'E' },
      { type: 'draw_offered', seat: 'S' },
      { type: 'draw_declined', seat: 'W' },
      { type: 'draw_accepted', seat: 'E' },
      { type: 'draw_offer_expired', seat: 'S' },
      { type: 'turn', seat: 'N', steps: 40 },
    ];
    const s = run(inBattle(), update({ events }));
    // An offer's answer and its lapse (Hidden Front, hidden-front.md §5) are logged too; turns are not.
    assert.deepEqual(s.log.map(e => e.type), ['skipped', 'flag_revealed', 'eliminated', 'escaped', 'draw_offered', 'draw_declined', 'draw_accepted', 'draw_offer_expired']);
    assert.deepEqual(s.chat, [{ sys: 'flag_revealed', seat: 'W' }, { sys: 'seat_eliminated', seat: 'W' }]);
    assert.equal(s.escaped.E, true);
    assert.equal(s.escaped.S, true, 'escapes from the snapshot stay');
  });

  test('game over: finished, logged, nothing fetched', () => {
    const over = view({ status: { state: 'won', winner: 'NS', reason: 'elimination' } });
    const end = update({
      events: [{ type: 'game_over', status: over.status }], view: over,
      clock: { phase: 'finished', seat: null, deadline: null, remaining_ms: null, server_time: 0 },
    });
    const s = run(inBattle(), end);
    assert.equal(s.phase, 'finished');
    assert.deepEqual(s.effects, []);
    assert.equal(s.log.at(-1).type, 'game_over');
    assert.equal(s.results, null, 'a casual game: no results');
    assert.equal(s.points, null);
    const again = run(s, update({ v: 44, from_v: 43 }));
    assert.deepEqual(again.effects, [], 'already finished');
  });

  test('a finished status without a clock phase still finishes the game', () => {
    const s = run(inBattle(), update({ view: view({ status: { state: 'draw', winner: null, reason: 'step_limit' } }) }));
    assert.equal(s.phase, 'finished');
    assert.deepEqual(s.effects, []);
  });

  test('the update that ends a ranked game stores every seat\'s results, and ours as the points', () => {
    const over = view({ status: { state: 'won', winner: 'NS', reason: 'elimination' } });
    const end = update({
      events: [{ type: 'game_over', status: over.status }], view: over, results: RESULTS,
      clock: { phase: 'finished', seat: null, deadline: null, remaining_ms: null, server_time: 0 },
    });
    const s = run(inBattle(), end);
    assert.equal(s.phase, 'finished');
    assert.deepEqual(s.effects, [], 'no polling');
    assert.deepEqual(s.results, RESULTS);
    assert.deepEqual(s.points, { points: 3, outcome: 'win' });
    // a later update without results keeps them
    assert.deepEqual(run(s, update({ v: 44, from_v: 43 })).results, RESULTS);
    // an escaper sees its −2, a spectator every seat's results but no points of its own
    const west = run({ ...inBattle(), you: { seats: ['W'] } }, end);
    assert.deepEqual(west.points, { points: -2, outcome: 'escape' });
    const watcher = run({ ...inBattle(), you: { seats: [] } }, end);
    assert.deepEqual([watcher.results, watcher.points], [RESULTS, null]);
    // dual control: the first of our seats with a result
    const dual = { N: { outcome: 'surrender', points: 0 }, E: { outcome: 'win', points: 3 }, S: { outcome: 'surrender', points: 0 }, W: { outcome: 'win', points: 3 } };
    const both = run({ ...inBattle(), you: { seats: ['N', 'S'] } }, { ...end, results: dual });
    assert.deepEqual(both.points, { points: 0, outcome: 'surrender' });
    // a rated Hidden Front game: ours carries the new rating (and title) instead of points
    const rating = { rating: 1662.3, rd: 290.3, provisional: true, title: null };
    const rated = { S: { outcome: 'win', points: 0, rating, rating_change: 162.3 }, N: { outcome: 'loss', points: 0, rating: { ...rating, rating: 1337.7 }, rating_change: -162.3 } };
    const south = run({ ...inBattle(), you: { seats: ['S'] } }, { ...end, results: rated });
    assert.deepEqual(south.points, { points: 0, outcome: 'win', rating, ratingChange: 162.3 });
    const north = run({ ...inBattle(), you: { seats: ['N'] } }, { ...end, results: rated });
    assert.equal(north.points.ratingChange, -162.3);
  });
});

describe('presence, chat, kicked, room closed', () => {
  test('presence merges into what we know', () => {
    const s = run(inBattle(), { type: 'presence', room: ROOM, seats: { S: true, W: false } });
    assert.deepEqual(s.presence, { N: true, E: true, S: true, W: false });
    assert.deepEqual(run(s, { type: 'presence', room: ROOM }).presence, s.presence);
  });

  test('chat lines are appended in order, with seat and team', () => {
    const s = run(fresh(),
      { type: 'chat', room: ROOM, from: 'alice', seat: 'N', team: false, text: 'gl hf', at: 1 },
      { type: 'chat', room: ROOM, from: 'spectator', team: false, text: '加油', at: 2 },
      { type: 'chat', room: ROOM, from: 'alice', seat: 'N', team: true, text: 'left!', at: 3 });
    assert.deepEqual(s.chat, [
      { from: 'alice', seat: 'N', team: false, text: 'gl hf' },
      { from: 'spectator', seat: null, team: false, text: '加油' },
      { from: 'alice', seat: 'N', team: true, text: 'left!' },
    ]);
  });

  test('kicked: an error toast and back to the lobby', () => {
    const s = run(inBattle(), { type: 'kicked', room: ROOM });
    assert.deepEqual(s.effects, [{ type: 'toast', key: 'kicked', kind: 'error' }, { type: 'navigate', to: '/lobby' }]);
  });

  test('room closed: a toast and back to the lobby', () => {
    const s = run(fresh(), roomMsg(), { type: 'room_closed', room: ROOM });
    assert.deepEqual(s.effects, [{ type: 'toast', key: 'room_closed', kind: '' }, { type: 'navigate', to: '/lobby' }]);
  });
});

describe('local actions', () => {
  test('joined: a new room id replaces the address; the same one changes nothing', () => {
    const s = frozen(initialState(null));
    const next = reduce(s, { type: 'ui/joined', room: 'g17' });
    assert.equal(next.roomId, 'g17');
    assert.deepEqual(next.effects, [{ type: 'replace_url', hash: '#/room/g17' }]);
    assert.equal(reduce(frozen(next), { type: 'ui/joined', room: 'g17' }).roomId, 'g17');
    assert.deepEqual(reduce(frozen(next), { type: 'ui/joined', room: 'g17' }).effects, []);
    assert.equal(reduce(s, { type: 'ui/joined' }), s, 'an ack without room');
  });

  test('chat tab', () => {
    const s = run(fresh(), { type: 'ui/chat_tab', tab: 'team' });
    assert.equal(s.chatTab, 'team');
    assert.equal(run(s, { type: 'ui/chat_tab', tab: 'nonsense' }).chatTab, 'room');
  });

  test('swap refused: the error stays shown in the panel (no toast over the board); a later swap clears it', () => {
    const error = { code: 'bomb_in_front_row', message: 'bombs may not be in the front row' };
    const s = run(inDeploy(), { type: 'ui/swap_failed', error });
    assert.equal(s.swapError, error);
    assert.deepEqual(s.effects, [], 'no toast over the board: the reason shows in the deployment panel');
    assert.equal(run(s, { type: 'ui/swap_done' }).swapError, null);
  });

  test('a refused action is toasted', () => {
    const error = { code: 'not_host' };
    assert.deepEqual(run(fresh(), { type: 'ui/action_failed', error }).effects, [{ type: 'toast', error, kind: 'error' }]);
  });


  test('animating drops the selection', () => {
    const s = run(inBattle(), { type: 'ui/click', station: 'Sa1' }, { type: 'ui/animating' });
    assert.equal(s.selected, null);
  });
});

describe('board clicks while deploying', () => {
  test('pick one of our pieces, pick it again to drop it; outside or Escape drops it', () => {
    let s = run(inDeploy(), { type: 'ui/click', station: 'Sa3' });
    assert.equal(s.selected, 'Sa3');
    assert.deepEqual(s.effects, []);
    assert.equal(run(s, { type: 'ui/click', station: 'Sa3' }).selected, null);
    assert.equal(run(s, { type: 'ui/click', station: null }).selected, null);
  });

  test('a second piece of the same seat asks for a swap', () => {
    const s = run(inDeploy(), { type: 'ui/click', station: 'Sa3' }, { type: 'ui/click', station: 'Se3' });
    assert.equal(s.selected, null);
    assert.deepEqual(s.effects, [{ type: 'swap', seat: 'S', a: 'Sa3', b: 'Se3' }]);
  });

  test('stations not ours, of the centre, or of a confirmed seat select nothing', () => {
    const picked = run(inDeploy(), { type: 'ui/click', station: 'Sa3' });
    for (const station of ['Na1', 'Cb2', 'Xx9']) {
      const s = run(picked, { type: 'ui/click', station });
      assert.equal(s.selected, null, station);
      assert.deepEqual(s.effects, [], station);
    }
    const confirmed = run(inDeploy(), update({ v: 4, from_v: 3, events: [{ type: 'deploy_confirmed', seat: 'S' }] }));
    assert.equal(run(confirmed, { type: 'ui/click', station: 'Sa3' }).selected, null);
    assert.deepEqual(S.selection(confirmed).selectable, []);
  });

  test('under dual control a piece of the other seat moves the selection there', () => {
    const dual = run(fresh(), roomMsg({ phase: 'deploying', game: 17, you: { seats: ['N', 'S'] } }),
      deploySnapshot({ you: { seats: ['N', 'S'] }, deployments: { N: { seat: 'N', pieces: pieces('N') }, S: { seat: 'S', pieces: pieces('S') } } }));
    const s = run(dual, { type: 'ui/click', station: 'Sa3' }, { type: 'ui/click', station: 'Na3' });
    assert.equal(s.selected, 'Na3');
    assert.deepEqual(s.effects, []);
    const swap = run(s, { type: 'ui/click', station: 'Nb3' });
    assert.deepEqual(swap.effects, [{ type: 'swap', seat: 'N', a: 'Na3', b: 'Nb3' }]);
    assert.equal(S.selection(dual).selectable.length, 50);
  });

  test('a seat without its deployment yet selects nothing', () => {
    const s = run(fresh(), roomMsg({ phase: 'deploying', game: 17, you: { seats: ['S'] } }), deploySnapshot({ deployments: null }));
    assert.equal(run(s, { type: 'ui/click', station: 'Sa3' }).selected, null);
  });
});

describe('board clicks in battle', () => {
  test('pick a piece with legal moves, pick it again to drop it, another piece without moves drops it', () => {
    const s = run(inBattle(), { type: 'ui/click', station: 'Sa1' });
    assert.equal(s.selected, 'Sa1');
    assert.deepEqual(S.selection(s), { selectable: ['Sa1', 'Sc1'], selected: 'Sa1', targets: ['Ca1', 'Sa2'] });
    assert.equal(run(s, { type: 'ui/click', station: 'Sa1' }).selected, null);
    assert.equal(run(s, { type: 'ui/click', station: 'Sb3' }).selected, null);
    assert.equal(run(s, { type: 'ui/click', station: 'Sc1' }).selected, 'Sc1');
  });

  test('a destination moves: one move per turn, nothing stays selectable', () => {
    const s = run(inBattle(), { type: 'ui/click', station: 'Sa1' }, { type: 'ui/click', station: 'Ca1' });
    assert.deepEqual(s.effects, [{ type: 'move', from: 'Sa1', to: 'Ca1', legal: { Sa1: ['Ca1', 'Sa2'], Sc1: ['Cb1'] }, v: 42 }]);
    assert.equal(s.selected, null);
    assert.deepEqual(s.legal, {});
    assert.equal(S.myTurn(s), false);
    assert.deepEqual(S.selection(s), { selectable: [], selected: null, targets: [] });
  });

  test('a refused move gives the moves back, unless the game moved on meanwhile', () => {
    const s = run(inBattle(), { type: 'ui/click', station: 'Sa1' }, { type: 'ui/click', station: 'Ca1' });
    const { legal, v } = s.effects[0];
    const error = { code: 'illegal_move' };
    const back = run(s, { type: 'ui/move_failed', error, legal, v });
    assert.deepEqual(back.legal, legal);
    assert.deepEqual(back.effects, [{ type: 'toast', error, kind: 'error' }]);
    const moved = run(s, update({ legal_moves: {} }), { type: 'ui/move_failed', error, legal, v });
    assert.deepEqual(moved.legal, {});
    assert.equal(moved.effects.length, 1);
  });

  test('not our turn (or a spectator): clicks select nothing', () => {
    const other = run(inBattle(), snapshot({ view: view({ turn: 'W' }), legal_moves: {} }));
    assert.equal(reduce(other, { type: 'ui/click', station: 'Sa1' }), other);
    const watcher = run(inBattle(), snapshot({ you: { seats: [] } }));
    assert.equal(S.myTurn(watcher), false);
    assert.equal(reduce(watcher, { type: 'ui/click', station: 'Sa1' }), watcher);
  });

  test('clicks in the waiting room or after the game do nothing', () => {
    const waiting = run(fresh(), roomMsg());
    assert.equal(reduce(waiting, { type: 'ui/click', station: 'Na1' }), waiting);
  });
});

describe('selectors', () => {
  test('bottom seat: ours; under dual control South or West; else South', () => {
    const b = (seats) => S.bottomSeat({ ...fresh(), you: { seats } });
    assert.equal(b(['N']), 'N');
    assert.equal(b(['E']), 'E');
    assert.equal(b(['W']), 'W');
    assert.equal(b(['N', 'S']), 'S');
    assert.equal(b(['E', 'W']), 'W');
    assert.equal(b([]), 'S');
  });

  test('turn: from the view, else from a battle clock', () => {
    assert.equal(S.turn(inBattle()), 'S');
    assert.equal(S.turn({ ...fresh(), clock: { phase: 'battle', seat: 'E' } }), 'E');
    assert.equal(S.turn({ ...fresh(), clock: { phase: 'deploying', seat: null } }), null);
  });

  test('pieces: the view in battle; own ranks and the others\' backs while deploying', () => {
    const battle = inBattle();
    assert.equal(S.boardPieces(battle), battle.view.pieces);
    const p = S.boardPieces(inDeploy());
    const codes = Object.values(p);
    assert.equal(codes.filter(c => c === 'S5').length, 25);
    for (const seat of ['N', 'E', 'W']) assert.equal(codes.filter(c => c === seat + '?').length, 25, seat);
    assert.ok(!('Sb2' in p) && !('Nb2' in p), 'camps are empty');
    const emptySeat = run(fresh(), roomMsg({ phase: 'deploying', you: { seats: ['N'] } }), { type: 'ui/joining', joining: false });
    const q = S.boardPieces({ ...emptySeat, phase: 'deploying' });
    assert.ok(!Object.keys(q).some(k => k.startsWith('S')), 'an empty seat has no pieces');
    assert.deepEqual(S.boardPieces(run(fresh(), roomMsg())), {});
  });

  test('flags: only revealed seats\' flags', () => {
    assert.deepEqual(S.flagStations(inBattle()), ['Wb6']);
    assert.deepEqual(S.flagStations(run(inBattle(), update({ view: view({ flags_revealed: [] }) }))), []);
    assert.deepEqual(S.flagStations(fresh()), []);
  });

  test('remaining time against a given now', () => {
    assert.equal(S.remainingMs(inBattle(), 1_000_020_000), 10_000);
    assert.equal(S.remainingMs(fresh(), 0), null);
  });

  test('plates in battle: the running clock, low time, skips, escapes, presence, bots', () => {
    const p = S.plates(inBattle(), 1_000_025_000);
    assert.equal(p.S.running, true);
    assert.equal(p.S.clockMs, 5000);
    assert.equal(p.S.low, true);
    assert.equal(p.S.me, true);
    assert.equal(p.S.note, 'escaped');
    assert.equal(p.S.online, false);
    assert.equal(p.N.running, false);
    assert.equal(p.N.clockMs, 20_000, 'move_seconds of the room');
    assert.equal(p.N.note, 'skips');
    assert.equal(p.E.skips, 2);
    assert.equal(p.E.maxSkips, 4);
    assert.equal(p.E.online, undefined, 'bots have no presence');
    assert.equal(S.plates(inBattle(), 1_000_000_000).S.low, false);
    const elim = S.plates(run(inBattle(), update({ view: view({ eliminated: ['W'] }) })), 0);
    assert.equal(elim.W.dead, true);
    assert.equal(elim.W.note, 'eliminated');
  });

  test('plates before the battle: ready, deployed, deploying, no clock', () => {
    const waiting = S.plates(run(fresh(), roomMsg()), 0);
    assert.equal(waiting.N.note, 'ready');
    assert.equal(waiting.W.note, null);
    assert.equal(waiting.S.info, null);
    assert.equal(waiting.N.clockMs, null);
    const dep = S.plates(run(inDeploy(), update({ v: 4, from_v: 3, events: [{ type: 'deploy_confirmed', seat: 'N' }] })), 0);
    assert.equal(dep.N.note, 'deployed');
    assert.equal(dep.E.note, 'deploying');
  });

  test('result for players and spectators', () => {
    const end = (status, seats = ['S']) => S.result(run(inBattle(), snapshot({ phase: 'finished', view: view({ status }), you: { seats } })));
    assert.deepEqual(end({ state: 'won', winner: 'NS', reason: 'elimination' }), { outcome: 'won', winner: 'NS', reason: 'elimination' });
    assert.deepEqual(end({ state: 'won', winner: 'EW', reason: 'elimination' }), { outcome: 'lost', winner: 'EW', reason: 'elimination' });
    assert.deepEqual(end({ state: 'won', winner: 'EW', reason: null }, []), { outcome: 'winner', winner: 'EW', reason: null });
    assert.deepEqual(end({ state: 'draw', winner: null, reason: 'agreement' }), { outcome: 'draw', winner: null, reason: 'agreement' });
    assert.deepEqual(S.result(fresh()), { outcome: 'over', winner: null, reason: null });
  });

  test('shown phase, options, resync fields', () => {
    assert.equal(S.shownPhase(fresh()), 'waiting');
    assert.equal(S.shownPhase(run(fresh(), roomMsg({ phase: 'battle' }))), 'battle');
    assert.equal(S.options(run(fresh(), snapshot())).move_seconds, 20, 'from the view without a room');
    assert.deepEqual(S.options(fresh()), {});
    assert.deepEqual(S.resyncFields(fresh()), { room: ROOM });
    assert.deepEqual(S.resyncFields(inBattle()), { room: ROOM, v: 42 });
  });

  test('changed compares the named slices by identity', () => {
    const s = inBattle();
    assert.equal(S.changed(null, s, ['room']), true);
    assert.equal(S.changed(s, { ...s }, ['room', 'view']), false);
    const next = run(s, { type: 'presence', room: ROOM, seats: { N: false } });
    assert.equal(S.changed(s, next, ['room', 'view']), false, 'presence leaves room and view alone');
    assert.equal(S.changed(s, next, ['presence']), true);
  });
});

describe('a round you can follow: numbered moves, what we knew, marks, casualties, the result', () => {
  const mv = (seat, from, to, combat = null, path) => ({ type: 'moved', seat, from, to, path: path || [from, to], combat });
  const upd = (v, events, over = {}) => update({ v, from_v: v - 1, events, ...over });

  test('every move since our last one is kept, numbered; our next move starts again', () => {
    let s = inBattle();
    s = run(s, upd(43, [mv('S', 'Sa1', 'Sa2')]), upd(44, [mv('W', 'Wa1', 'Wa2')]), upd(45, [mv('N', 'Nc3', 'Nc4')]));
    assert.deepEqual(s.recent.map(e => [e.n, e.seat]), [[1, 'S'], [2, 'W'], [3, 'N']]);
    assert.deepEqual(s.recent[0].path, ['Sa1', 'Sa2']);
    assert.deepEqual(s.log.map(e => e.no), [38, 39, 40], 'the log numbers moves from the view\'s step count');
    const again = run(s, upd(46, [mv('E', 'Ea1', 'Ca1', null, ['Ea1', 'Ca1'])]), upd(47, [mv('S', 'Sa2', 'Sa3')]));
    assert.deepEqual(again.recent.map(e => [e.n, e.seat, e.from]), [[1, 'S', 'Sa2']]);
    assert.deepEqual(S.recentMoves(run(fresh(), roomMsg({ phase: 'deploying' })),), []);
  });

  test('a move is numbered by its battle step, as the step counter and the board say it (issue 28)', () => {
    // The snapshot's view is at step 37: the next move is step 38; a skip is a step too; a `turn`
    // event's step count is the truth.
    const turnAt = (seat, steps) => ({ type: 'turn', seat, steps });
    let s = run(inBattle(),
      upd(43, [mv('S', 'Sa1', 'Sa2'), turnAt('W', 38)], { view: view({ turn: 'W', steps: 38 }) }),
      upd(44, [{ type: 'skipped', seat: 'W', skips: 1 }, turnAt('N', 39), mv('N', 'Nc3', 'Nc4'), turnAt('E', 40)], { view: view({ turn: 'E', steps: 40 }) }));
    assert.deepEqual(s.log.filter(e => e.type === 'moved').map(e => e.no), [38, 40]);
    assert.deepEqual(s.recent.map(e => e.no), [38, 40], 'the board draws the same numbers as the log');
    assert.equal(s.moveNo, 40);
    // After a reload (a snapshot) numbering goes on from the view's step count.
    const again = run(s, snapshot({ v: 50, view: view({ turn: 'W', steps: 45 }) }), upd(51, [mv('W', 'Wa1', 'Wa2'), turnAt('N', 46)], { view: view({ turn: 'N', steps: 46 }) }));
    assert.equal(again.log.filter(e => e.type === 'moved').pop().no, 46);
    assert.equal(again.recent.at(-1).no, 46);
  });

  test('a draw offered by another seat is a prompt for a player with a live seat, not for the offerer or a spectator', () => {
    const offered = (seat, over = {}) => run(inBattle(), upd(43, [{ type: 'draw_offered', seat }], { view: view({ draw_offer: seat }), ...over }));
    assert.equal(S.drawPrompt(offered('E')), 'E');
    assert.equal(S.drawPrompt(offered('S')), null, 'our own offer');
    assert.equal(S.drawPrompt(run(offered('E'), upd(44, [{ type: 'draw_declined', seat: 'W' }], { view: view({ draw_offer: null }) }))), null, 'answered');
    const spectator = run(fresh(), roomMsg({ phase: 'battle', game: 17, you: { seats: [] } }), snapshot({ you: { seats: [] }, view: view({ draw_offer: 'E' }) }));
    assert.equal(S.drawPrompt(spectator), null);
    const out = run(inBattle(), snapshot({ view: view({ draw_offer: 'E', eliminated: ['S'] }) }));
    assert.equal(S.drawPrompt(out), null, 'an eliminated seat has nothing to answer');
    assert.equal(S.drawPrompt(run(inBattle(), snapshot({ view: view({ draw_offer: 'N' }) }))), 'N', 'after a reload the prompt is back');
  });

  test('our own seat is "you" in every line; dual control names the seat too', () => {
    const s = inBattle();
    assert.deepEqual(S.whoIs(s, 'S'), { you: true, dual: false });
    assert.deepEqual(S.whoIs(s, 'N'), { you: false });
    const dual = run(s, snapshot({ you: { seats: ['N', 'S'] } }));
    assert.deepEqual(S.whoIs(dual, 'N'), { you: true, dual: true });
  });

  test('a combat remembers our rank and never an enemy rank we did not see', () => {
    const s = run(inBattle(), upd(43, [mv('S', 'Sa1', 'Nc3', 'attacker_won')]), upd(44, [mv('N', 'Nb6', 'Sa2', 'both_removed')]));
    const [a, b] = s.log;
    assert.deepEqual(a.attacker, { seat: 'S', rank: '9', mine: true });
    assert.deepEqual(a.defender, { seat: 'N', rank: null, mine: false });
    assert.deepEqual(b.attacker, { seat: 'N', rank: null, mine: false });
    assert.deepEqual(b.defender, { seat: 'S', rank: null, mine: true }, 'Sa2 was drawn hidden: no rank invented');
    assert.deepEqual(s.effects, [{ type: 'sound', name: 'combat' }]);
  });

  test('our turn and the start of the battle are announced', () => {
    const s = run(inBattle(), upd(43, [mv('S', 'Sa1', 'Sa2')], { view: view({ turn: 'W' }), legal_moves: {} }));
    const mine = run(s, upd(44, [mv('W', 'Wb6', 'Wb5')], { view: view({ turn: 'S' }), legal_moves: { Sa2: ['Sa1'] } }));
    assert.ok(mine.effects.some(e => e.type === 'your_turn'));
    assert.ok(!s.effects.some(e => e.type === 'your_turn'));
    const d = inDeploy();
    const start = run(d, update({ v: d.v + 1, from_v: d.v, events: [{ type: 'battle_started' }] }));
    assert.ok(start.effects.some(e => e.type === 'announce' && e.key === 'battle_begins'));
  });

  const withEnemies = () => run(inBattle(), upd(43, [], { view: view({ pieces: { Sa1: 'S9', Sa2: 'S?', Nc3: 'N?', Wb6: 'WF', Ec3: 'E?', Eb6: 'E?' } }) }));

  test('marks: enemy pieces only; a mark follows its piece and vanishes with it; kept per game', () => {
    let s = withEnemies();
    assert.equal(S.markable(s, 'Ec3'), true);
    assert.equal(S.markable(s, 'Nc3'), false, 'our partner\'s piece');
    assert.equal(S.markable(s, 'Sa2'), false, 'our own piece');
    assert.equal(S.markable(s, 'Wb6'), false, 'a visible piece');
    s = run(s, { type: 'ui/click', station: 'Ec3' });
    assert.equal(s.markMenu, 'Ec3', 'a click on an enemy piece opens the mark menu');
    s = run(s, { type: 'ui/mark', station: 'Ec3', mark: '7' }, { type: 'ui/mark', station: 'Eb6', mark: 'B' });
    assert.deepEqual(s.marks, { Ec3: '7', Eb6: 'B' });
    assert.deepEqual(s.effects, [{ type: 'save_marks' }]);
    assert.equal(s.markMenu, null);
    s = run(s, upd(44, [mv('E', 'Ec3', 'Ec2')]));
    assert.deepEqual(s.marks, { Ec2: '7', Eb6: 'B' }, 'follows the move');
    assert.ok(s.effects.some(e => e.type === 'save_marks'));
    s = run(s, upd(45, [mv('S', 'Sa1', 'Eb6', 'attacker_won')]));
    assert.deepEqual(s.marks, { Ec2: '7' }, 'taken: gone');
    s = run(s, upd(46, [mv('E', 'Ec2', 'Sa2', 'defender_won')]));
    assert.deepEqual(s.marks, {}, 'lost its attack: gone');
    s = run(s, { type: 'ui/mark', station: 'Sa2', mark: '9' });
    assert.deepEqual(s.marks, {}, 'our own piece cannot be marked');
  });

  test('marks loaded from the browser: only for this game and on hidden enemy pieces', () => {
    const s = withEnemies();
    const loadedElsewhere = run(s, { type: 'ui/marks_loaded', game: 18, marks: { Ec3: '7' } });
    assert.deepEqual(loadedElsewhere.marks, {});
    const loaded = run(s, { type: 'ui/marks_loaded', game: 17, marks: { Ec3: '7', Nc3: '7', Sa2: '1', Ca1: '3', Eb6: 'x' } });
    assert.deepEqual(loaded.marks, { Ec3: '7' });
  });

  test('casualties: our lost pieces by rank; an enemy\'s only counted, naming a fallen commander', () => {
    const all = {};
    // South: every piece but one commander and two engineers left; North: 20 hidden, flag revealed.
    const south = ['8', '7', '7', '6', '6', '5', '5', '4', '4', '3', '3', '3', '2', '2', '2', '1', 'B', 'B', 'M', 'M', 'M', 'F'];
    [...STATIONS.values()].filter(x => x.seat === 'S' && x.kind !== 'camp').slice(0, south.length).forEach((x, i) => { all[x.name] = 'S' + south[i]; });
    [...STATIONS.values()].filter(x => x.seat === 'N' && x.kind !== 'camp').slice(0, 20).forEach((x) => { all[x.name] = 'N?'; });
    const s = run(inBattle(), upd(43, [], { view: view({ pieces: all, flags_revealed: ['N'] }) }));
    const c = S.casualties(s);
    assert.deepEqual(c.S, { left: 22, lost: 3, ranks: ['9', '1', '1'] });
    assert.deepEqual(c.N, { left: 20, lost: 5, ranks: ['9'] });
    assert.deepEqual(c.E, { left: 0, lost: 25, ranks: [] });
  });

  test('the full reveal: at the end the eliminated seats\' pieces are drawn where they fell and the casualties name every lost piece', () => {
    const pieces = { Sa1: 'S9', Sa2: 'S3', Na1: 'NF', Ea1: 'E2' };
    const fallen = { W: { Wa1: 'W9', Wb2: 'WF', Sa1: 'W7' } };
    const end = view({ pieces, fallen, eliminated: ['W'], status: { state: 'won', winner: 'NS', reason: 'elimination' } });
    const s = run(inBattle(), upd(43, [], { view: end }));
    const drawn = S.boardPieces(s);
    assert.equal(drawn.Wa1, 'W9');
    assert.equal(drawn.Wb2, 'WF');
    assert.equal(drawn.Sa1, 'S9', 'a piece standing there now is drawn, not the fallen one');
    const c = S.casualties(s);
    assert.equal(c.W.lost, 25);
    assert.equal(c.W.ranks.length, 25, 'every piece of the eliminated seat is named');
    assert.equal(c.E.ranks.length, 24, 'an enemy\'s losses are named once the game is over');
    // while the game is played, an enemy's losses stay backs
    const playing = run(inBattle(), upd(43, [], { view: view({ pieces, eliminated: ['W'], flags_revealed: [] }) }));
    assert.deepEqual(S.casualties(playing).W.ranks, []);
    assert.equal(S.boardPieces(playing).Wa1, undefined);
  });

  test('the replay keeps an eliminated seat\'s pieces as they stood, for the full reveal', () => {
    const deployments = [['N', { Nb2: '3' }], ['E', { Eb2: '3' }], ['S', { Sb2: '3' }], ['W', { Wb2: '3', Wa1: 'F' }]]
      .map(([seat, pieces]) => ({ seat, pieces }));
    const states = replayRecord({ variant: 'four_player', options: OPTIONS, deployments, actions: [{ type: 'surrender', seat: 'W' }] });
    const last = states.at(-1);
    assert.equal(last.pieces.Wb2, undefined, 'off the board');
    assert.deepEqual(last.fallen.W, { Wb2: 'W3', Wa1: 'WF' });
    assert.deepEqual(states[0].fallen, {});
  });

  test('the reason of the result is told from the viewer\'s side', () => {
    const over = (you) => run(fresh(), roomMsg({ phase: 'battle', game: 17, you }), snapshot({ you,
      view: view({ status: { state: 'won', winner: 'EW', reason: 'elimination' } }), phase: 'finished' }));
    const lost = over({ seats: ['S'] }), won = over({ seats: ['E'] }), watching = over({ seats: [] });
    assert.deepEqual(S.reasonText(S.result(lost)), { key: 'reason_elimination_us' });
    assert.deepEqual(S.reasonText(S.result(won)), { key: 'reason_elimination_them' });
    assert.deepEqual(S.reasonText(S.result(watching)), { key: 'reason_elimination_team', team: 'NS' });
    assert.equal(S.result(lost).outcome, 'lost');
  });
});

describe('issue 28: the log from past events, 托管 marks, rematch', () => {
  const past = [
    { type: 'deploy_confirmed', seat: 'N' }, { type: 'battle_started' }, { type: 'turn', seat: 'N', steps: 0 },
    { type: 'moved', seat: 'N', from: 'Nb1', to: 'Ca1', path: ['Nb1', 'Ca1'], combat: null },
    { type: 'turn', seat: 'E', steps: 1 },
    { type: 'moved', seat: 'E', from: 'Ea1', to: 'Ca2', path: ['Ea1', 'Ca2'], combat: null },
  ];
  test('a snapshot with past events rebuilds the log, moves numbered from 1', () => {
    const s = run(S.initialState(ROOM), roomMsg(), snapshot({ past_events: past }));
    const moves = s.log.filter(e => e.type === 'moved');
    assert.deepEqual(moves.map(m => [m.seat, m.no]), [['N', 1], ['E', 2]]);
    assert.ok(!s.log.some(e => e.type === 'turn'), 'turns are not logged');
  });
  test('the rebuilt log names the pieces as we saw them then, and numbers moves as live', () => {
    const withSkip = [
      ...past.slice(0, 4), { type: 'skipped', seat: 'E', skips: 1 }, { type: 'turn', seat: 'S', steps: 2 },
      { type: 'moved', seat: 'S', from: 'Sa1', to: 'Ca1', path: ['Sa1', 'Ca1'], combat: 'attacker_won' },
    ];
    const seen = [['N?', null], ['S7', 'N?']];
    const s = run(S.initialState(ROOM), roomMsg(), snapshot({ past_events: withSkip, past_seen: seen }));
    const moves = s.log.filter(e => e.type === 'moved');
    assert.deepEqual(moves.map(m => m.no), [1, 3], 'the skip counts as a step');
    assert.deepEqual(moves[0].attacker, { seat: 'N', rank: null, mine: false });
    assert.deepEqual(moves[1].attacker, { seat: 'S', rank: '7', mine: true }, 'our own rank, for us');
    assert.deepEqual(moves[1].defender, { seat: 'N', rank: null, mine: false }, 'the seat of the piece met');
    // a snapshot without `past_seen` still names every seat
    const bare = run(S.initialState(ROOM), roomMsg(), snapshot({ past_events: withSkip }));
    assert.equal(bare.log.filter(e => e.type === 'moved')[1].attacker.seat, 'S');
  });
  test('a snapshot of another game without past events starts an empty log', () => {
    const s = run(S.initialState(ROOM), roomMsg(), snapshot({ past_events: past }), snapshot({ game: 99 }));
    assert.deepEqual(s.log, []);
  });
  test('the room frame keeps a game\'s seats current (托管) and says who asked for a rematch', () => {
    let s = run(S.initialState(ROOM), roomMsg(), snapshot());
    const seats = { ...s.seats, S: { ...s.seats.S, auto: 'away' } };
    s = run(s, roomMsg({ phase: 'battle', seats }));
    assert.equal(S.autoOf(s, 'S'), 'away');
    assert.equal(S.autoOf(s, 'N'), null);
    assert.equal(S.rematchSeats(s), null);
  });
});
