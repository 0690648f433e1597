// Hidden Front (两人军棋) in the web client, under node: the board data against hidden-front.md §2,
// how each side sees it (orientation, formation names), the room reducer with two-seat rooms and
// Hidden Front's messages, the casualties panel (§7), and the replay engine's rules (§4–§5).
// No browser, no server. Run: node --test tests/web/
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  HF_STATIONS, HF_LINKS, HF_LINES, HF_SEATS, BOARDS, boardOf, stationInfo, localName, toFormation, formationsOf,
} from '../../static/js/geometry.js';
import * as S from '../../static/js/room/state.js';
import { replayRecord } from '../../static/js/replay-engine.js';
import { run } from './support.mjs';

const stations = [...HF_STATIONS.values()];
const neighbours = new Map(stations.map(s => [s.name, new Set()]));
for (const l of HF_LINKS) { neighbours.get(l.a).add(l.b); neighbours.get(l.b).add(l.a); }
const linked = (a, b) => neighbours.get(a).has(b);
const link = (a, b) => HF_LINKS.find(l => (l.a === a && l.b === b) || (l.a === b && l.b === a));

describe('the board (hidden-front.md §2)', () => {
  test('totals: 60 stations, 32 on rail, 10 camps, 4 headquarters, 133 links = 98 road + 35 rail, 7 lines', () => {
    assert.equal(stations.length, 60);
    assert.equal(stations.filter(s => s.rail).length, 32);
    assert.deepEqual(stations.filter(s => s.kind === 'camp').map(s => s.name).sort(),
      ['B10', 'B3', 'B5', 'B8', 'C4', 'C9', 'D10', 'D3', 'D5', 'D8']);
    assert.deepEqual(stations.filter(s => s.kind === 'hq').map(s => s.name).sort(), ['B1', 'B12', 'D1', 'D12']);
    assert.equal(HF_LINKS.length, 133);
    assert.equal(HF_LINKS.filter(l => !l.rail).length, 98);
    assert.equal(HF_LINKS.filter(l => l.rail).length, 35);
    assert.equal(HF_LINES.length, 7);
    assert.deepEqual(HF_LINES.map(l => l.length).sort((a, b) => a - b), [2, 5, 5, 5, 5, 10, 10]);
  });

  test('1,176 ordered pairs: one step away, plus every other rail station for a rail station', () => {
    let n = 0;
    for (const s of stations) {
      if (s.kind === 'hq') continue;
      const reach = new Set(neighbours.get(s.name));
      if (s.rail) for (const o of stations) if (o.rail && o.name !== s.name) reach.add(o.name);
      n += reach.size;
    }
    assert.equal(n, 1176);
  });

  test('the front is crossed only at A, C and E, all three by rail; B and D are mountains', () => {
    const across = HF_LINKS.filter(l => HF_STATIONS.get(l.a).seat !== HF_STATIONS.get(l.b).seat);
    assert.deepEqual(across.map(l => [l.a, l.b].sort().join('-')).sort(), ['A6-A7', 'C6-C7', 'E6-E7']);
    assert.ok(across.every(l => l.rail));
    assert.ok(!linked('B6', 'B7') && !linked('D6', 'D7'));
  });

  test('rails: rows 2, 6, 7, 11 and columns A, E within each half; C6–C7; nothing else', () => {
    for (const l of HF_LINKS) {
      const a = HF_STATIONS.get(l.a), b = HF_STATIONS.get(l.b);
      const row = a.r === b.r && [2, 6, 7, 11].includes(a.r);
      const col = a.c === b.c && (a.c === 0 || a.c === 4) && Math.min(a.r, b.r) >= 2 && Math.max(a.r, b.r) <= 11;
      const front = a.c === 2 && b.c === 2 && Math.min(a.r, b.r) === 6 && Math.max(a.r, b.r) === 7;
      assert.equal(l.rail, row || col || front, `${l.a}-${l.b}`);
    }
    assert.equal(link('A1', 'A2').rail, false, 'the back row to row 2 is road');
    assert.equal(link('C2', 'C3').rail, false, 'column C is road inside a half');
    assert.equal(link('A6', 'A7').rail, true);
  });

  test('camps link to their four diagonal neighbours; a headquarters only to its orthogonal ones', () => {
    for (const s of stations.filter(x => x.kind === 'camp')) {
      for (const [dc, dr] of [[-1, -1], [1, -1], [-1, 1], [1, 1]]) {
        assert.ok(linked(s.name, 'ABCDE'[s.c + dc] + (s.r + dr)), `${s.name} diagonal`);
      }
    }
    assert.deepEqual([...neighbours.get('B1')].sort(), ['A1', 'B2', 'C1']);
    assert.deepEqual([...neighbours.get('D12')].sort(), ['C12', 'D11', 'E12']);
    // A diagonal link joins a camp: never two ordinary stations.
    for (const l of HF_LINKS) {
      const a = HF_STATIONS.get(l.a), b = HF_STATIONS.get(l.b);
      if (a.c !== b.c && a.r !== b.r) assert.ok(a.kind === 'camp' || b.kind === 'camp', `${l.a}-${l.b}`);
    }
  });

  test('the halves: North owns rows 1–6, South rows 7–12; 25 deployment stations each', () => {
    for (const seat of HF_SEATS) {
      const half = stations.filter(s => s.seat === seat);
      assert.equal(half.length, 30);
      assert.equal(half.filter(s => s.kind !== 'camp').length, 25);
      assert.ok(half.every(s => (seat === 'N' ? s.r <= 6 : s.r >= 7)));
    }
    assert.deepEqual(boardOf('hidden_front').seats, ['S', 'N']);
    assert.equal(boardOf(undefined), BOARDS.four_player);
  });
});

describe('orientation and names', () => {
  const place = BOARDS.hidden_front.place;
  test('South sees row 12 at the bottom, column A on the left', () => {
    assert.deepEqual(place('A1', 'S'), [0, 0]);
    assert.deepEqual(place('E12', 'S'), [4, 11]);
    assert.ok(place('C12', 'S')[1] > place('C1', 'S')[1]);
  });

  test('North sees the board turned 180°: its back row at the bottom, column E on the left', () => {
    assert.deepEqual(place('A1', 'N'), [4, 11]);
    assert.deepEqual(place('E12', 'N'), [0, 0]);
    assert.ok(place('C1', 'N')[1] > place('C12', 'N')[1]);
    assert.ok(place('E6', 'N')[0] < place('A6', 'N')[0]);
    for (const s of stations) {
      const [x, y] = place(s.name, 'S');
      assert.deepEqual(place(s.name, 'N'), [4 - x, 11 - y]);
    }
  });

  test('each side on its side: the viewer at the bottom, the other at the top', () => {
    assert.equal(BOARDS.hidden_front.sideOf('S', 'S'), 'bottom');
    assert.equal(BOARDS.hidden_front.sideOf('N', 'S'), 'top');
    assert.equal(BOARDS.hidden_front.sideOf('N', 'N'), 'bottom');
    assert.equal(BOARDS.hidden_front.sideOf('S', 'N'), 'top');
  });

  test('local names as in rules.md §2 (front row 1, headquarters b6 d6): one formation fits both games', () => {
    assert.equal(localName('A7'), 'a1');
    assert.equal(localName('C9'), 'c3');
    assert.equal(localName('B12'), 'b6');
    assert.equal(localName('E6'), 'a1', "North's local column a is column E");
    assert.equal(localName('B1'), 'd6');
    assert.equal(localName('D1'), 'b6');
    for (const s of stations) {
      const l = s.local;
      const camp = ['b2', 'd2', 'c3', 'b4', 'd4'].includes(l), hq = ['b6', 'd6'].includes(l);
      assert.equal(s.kind, camp ? 'camp' : hq ? 'hq' : 'ordinary', s.name);
    }
    assert.equal(stationInfo('Sa1').seat, 'S');
    assert.equal(stationInfo('C9').seat, 'S');
    assert.equal(stationInfo('Z9'), null);
  });

  test('a deployment becomes a formation in local names; lists are filtered by game', () => {
    assert.deepEqual(toFormation({ seat: 'N', pieces: { B1: 'F', E6: '9', C7: '1' } }), { d6: 'F', a1: '9', c1: '1' });
    assert.deepEqual(toFormation({ Sa1: '9', Sb6: 'F' }), { a1: '9', b6: 'F' });
    const list = [{ id: 1, name: 'old' }, { id: 2, name: 'x', variant: 'hidden_front' }, { id: 3, variant: 'four_player' }];
    assert.deepEqual(formationsOf(list, 'hidden_front').map(f => f.id), [2]);
    assert.deepEqual(formationsOf(list, 'four_player').map(f => f.id), [1, 3]);
  });
});

// ---------- the reducer with two-seat rooms

const ROOM = 'hf7k2m';
// as the server shows Hidden Front's options: its own, with its fixed limits
const HF_OPTIONS = {
  move_seconds: 30, deploy_seconds: 90, reconnect_seconds: 60, flag_capture: 'any', mines: 'mutual',
  max_timeouts: 3, max_quiet_steps: 100,
};
function roomMsg(over = {}) {
  return {
    type: 'room', room: ROOM, kind: 'practice', variant: 'hidden_front', public: false, invite: null, host: 'ann',
    options: HF_OPTIONS, phase: 'battle', game: 31,
    seats: {
      S: { account_id: 3, name: 'ann', guest: false, bot: null, ready: true, online: true },
      N: { account_id: null, name: 'Bot', guest: false, bot: 'standard', ready: true, online: true },
    },
    spectators: 0, you: { seats: ['S'], host: true },
    ...over,
  };
}
function hfView(over = {}) {
  return {
    variant: 'hidden_front', turn: 'S',
    pieces: { C7: 'S9', A7: 'S1', B12: 'SF', C6: 'N?', E6: 'N?', D1: 'N?' },
    options: HF_OPTIONS, eliminated: [], timeouts: { S: 1, N: 2 }, steps: 23, quiet_steps: 7,
    status: { state: 'ongoing', winner: null, reason: null }, flags_revealed: [], draw_offer: null,
    ...over,
  };
}
function snapshot(over = {}) {
  return {
    type: 'snapshot', room: ROOM, game: 31, v: 10, phase: 'battle',
    seats: { S: { account_id: 3, name: 'ann', bot: null, online: true, escaped: false }, N: { account_id: null, name: 'Bot', bot: 'standard', online: true, escaped: false } },
    you: { seats: ['S'] }, view: hfView(), deployments: null, confirmed: ['S', 'N'],
    clock: { phase: 'battle', seat: 'S', deadline: 1_000_030_000, remaining_ms: 30000, server_time: 1_000_000_000 },
    legal_moves: { C7: ['C6', 'B7', 'D7'], A7: ['A6', 'A8'] }, last_events: [],
    ...over,
  };
}
const inBattle = (you = ['S']) => run(S.initialState(ROOM), roomMsg({ you: { seats: you, host: true } }), snapshot({ you: { seats: you } }));
const update = (over) => ({ type: 'update', room: ROOM, from_v: 10, v: 11, events: [], ...over });

/** South's own deployment: its 25 non-camp stations. */
function southDeployment() {
  const pieces = {};
  for (const s of stations) if (s.seat === 'S' && s.kind !== 'camp') pieces[s.name] = '3';
  return pieces;
}

describe('the reducer with Hidden Front rooms', () => {
  test('the room says which game: seats S and N only, no teams', () => {
    const s = inBattle();
    assert.equal(S.variantOf(s), 'hidden_front');
    assert.ok(S.isHiddenFront(s));
    assert.deepEqual(S.seatsOf(s), ['S', 'N']);
    assert.equal(S.myTeam(s), null);
    assert.deepEqual(Object.keys(s.presence).sort(), ['N', 'S']);
    assert.deepEqual(Object.keys(S.plates(s, 1_000_010_000)).sort(), ['N', 'S']);
    // Without a room message, the view tells the game.
    assert.equal(S.variantOf({ ...S.initialState(ROOM), view: hfView() }), 'hidden_front');
    assert.equal(S.variantOf(S.initialState(ROOM)), 'four_player');
  });

  test('the bottom seat: South, or North for its player (the board turned)', () => {
    assert.equal(S.bottomSeat(inBattle(['S'])), 'S');
    assert.equal(S.bottomSeat(inBattle(['N'])), 'N');
    assert.equal(S.bottomSeat(inBattle([])), 'S');
  });

  test('deployment: our 25 pieces with ranks, the other half as 25 backs, no camp occupied', () => {
    const s = run(S.initialState(ROOM), roomMsg({ phase: 'deploying' }), snapshot({
      phase: 'deploying', view: null, legal_moves: {}, confirmed: [],
      deployments: { S: { seat: 'S', pieces: southDeployment() } },
      clock: { phase: 'deploying', seat: null, deadline: 1_000_090_000, remaining_ms: 90000, server_time: 1_000_000_000 },
    }));
    const p = S.boardPieces(s);
    const codes = Object.entries(p);
    assert.equal(codes.length, 50);
    assert.equal(codes.filter(([stn, c]) => c === 'S3' && HF_STATIONS.get(stn).r >= 7).length, 25);
    assert.equal(codes.filter(([stn, c]) => c === 'N?' && HF_STATIONS.get(stn).r <= 6).length, 25);
    assert.ok(codes.every(([stn]) => HF_STATIONS.get(stn).kind !== 'camp'));
    // A click on two of our pieces swaps them; a click on the other half does nothing.
    const a = run(s, { type: 'ui/click', station: 'A7' });
    assert.equal(a.selected, 'A7');
    const b = run(a, { type: 'ui/click', station: 'E12' });
    assert.deepEqual(b.effects, [{ type: 'swap', seat: 'S', a: 'A7', b: 'E12' }]);
    const c = run(s, { type: 'ui/click', station: 'A1' });
    assert.equal(c.selected, null);
  });

  test('battle: legal moves from the view, a move in the §8 notation, its path numbered', () => {
    let s = inBattle();
    assert.deepEqual(S.selection(s).selectable.sort(), ['A7', 'C7']);
    s = run(s, { type: 'ui/click', station: 'C7' });
    assert.deepEqual(S.selection(s).targets, ['C6', 'B7', 'D7']);
    s = run(s, { type: 'ui/click', station: 'C6' });
    assert.equal(s.effects[0].type, 'move');
    assert.equal(s.effects[0].from, 'C7');
    assert.equal(s.effects[0].to, 'C6');
    const after = hfView({ turn: 'N', steps: 24, quiet_steps: 0, pieces: { C6: 'S9', A7: 'S1', B12: 'SF', E6: 'N?', D1: 'N?' } });
    s = run(s, update({
      events: [{ type: 'moved', seat: 'S', from: 'C7', to: 'C6', path: ['C7', 'C6'], combat: 'attacker_won' }, { type: 'turn', seat: 'N', steps: 24 }],
      view: after, legal_moves: {}, clock: { phase: 'battle', seat: 'N', deadline: 1_000_060_000, remaining_ms: 30000, server_time: 1_000_030_000 },
    }));
    assert.equal(s.recent.length, 1);
    assert.equal(s.recent[0].n, 1);
    assert.deepEqual(s.recent[0].path, ['C7', 'C6']);
    assert.deepEqual(s.log[0].attacker, { seat: 'S', rank: '9', mine: true });
    assert.deepEqual(s.log[0].defender, { seat: 'N', rank: null, mine: false }, 'the enemy piece stays unnamed');
    assert.equal(S.turn(s), 'N');
  });

  test('the counters: steps, steps since the last combat, both sides\' timeouts of 3', () => {
    const s = inBattle();
    assert.deepEqual(S.hfCounters(s), { steps: 23, quiet: 7, limit: 100, timeouts: { S: 1, N: 2 }, maxTimeouts: 3 });
    const p = S.plates(s, 1_000_010_000);
    assert.equal(p.S.skips, 1);
    assert.equal(p.N.skips, 2);
    assert.equal(p.S.maxSkips, 3);
    assert.equal(p.S.running, true);
    assert.equal(p.S.remaining, 20000);
    const skipped = run(s, update({ events: [{ type: 'skipped', seat: 'S', skips: 2 }], view: hfView({ turn: 'N', timeouts: { S: 2, N: 2 }, steps: 24, quiet_steps: 8 }) }));
    assert.deepEqual(S.hfCounters(skipped).timeouts, { S: 2, N: 2 });
    assert.equal(skipped.log.at(-1).type, 'skipped');
  });

  test('draw offers: answer the other side\'s; after our own, wait 10 steps; a lapse is logged', () => {
    let s = run(inBattle(), update({ events: [{ type: 'draw_offered', seat: 'N' }], view: hfView({ draw_offer: 'N' }) }));
    assert.equal(s.view.draw_offer, 'N');
    assert.equal(S.drawOfferWait(s, 'S'), 0);
    s = run(s, update({ from_v: 11, v: 12, events: [{ type: 'draw_offer_expired', seat: 'N' }], view: hfView({ steps: 24 }) }));
    assert.deepEqual(s.log.map(e => e.type), ['draw_offered', 'draw_offer_expired']);
    s = run(s, update({ from_v: 12, v: 13, events: [{ type: 'draw_offered', seat: 'S' }], view: hfView({ steps: 24, draw_offer: 'S' }) }));
    assert.equal(S.drawOfferWait(s, 'S'), 10);
    s = run(s, update({ from_v: 13, v: 14, events: [{ type: 'draw_declined', seat: 'N' }], view: hfView({ steps: 31 }) }));
    assert.equal(S.drawOfferWait(s, 'S'), 3);
    s = run(s, update({ from_v: 14, v: 15, view: hfView({ steps: 34 }) }));
    assert.equal(S.drawOfferWait(s, 'S'), 0);
    // The four-player game has no step rule here.
    assert.equal(S.drawOfferWait({ ...s, room: { ...s.room, variant: 'four_player' }, view: { ...s.view, variant: undefined, steps: 24 } }, 'S'), 0);
  });

  test('marks: every hidden piece of the other side, none of ours', () => {
    const s = inBattle();
    assert.ok(S.markable(s, 'C6'));
    assert.ok(!S.markable(s, 'C7'));
    const n = inBattle(['N']);
    assert.ok(!S.markable(n, 'C6') || n.view.pieces.C6 !== 'N?');
  });

  test('the result: a seat wins; told from our side, or naming the loser to a spectator', () => {
    const over = (winner, reason) => hfView({ turn: null, status: { state: 'won', winner, reason } });
    const end = (you, winner, reason) => run(inBattle(you), update({
      events: [{ type: 'game_over', status: { state: 'won', winner, reason } }], view: over(winner, reason),
      clock: { phase: 'finished', seat: null, deadline: null, remaining_ms: null, server_time: 0 },
    }));
    const won = end(['S'], 'S', 'flag_captured');
    assert.equal(won.phase, 'finished');
    assert.deepEqual(S.result(won), { outcome: 'won', winner: 'S', reason: 'flag_captured' });
    assert.deepEqual(S.reasonText(S.result(won)), { key: 'reason_flag_captured_them' });
    const lost = end(['S'], 'N', 'timeouts');
    assert.equal(S.result(lost).outcome, 'lost');
    assert.deepEqual(S.reasonText(S.result(lost)), { key: 'reason_timeouts_us' });
    const watched = end([], 'N', 'no_legal_move');
    assert.equal(S.result(watched).outcome, 'winner');
    assert.deepEqual(S.reasonText(S.result(watched)), { key: 'reason_no_legal_move_seat', seat: 'S' });
    // away past the grace: an `escaped` event, then the game ends as a surrender of that side
    const away = (you) => run(inBattle(you), update({
      events: [{ type: 'escaped', seat: 'N' }, { type: 'game_over', status: { state: 'won', winner: 'S', reason: 'surrender' } }],
      view: over('S', 'surrender'),
    }));
    assert.deepEqual(S.reasonText(S.result(away(['S']))), { key: 'reason_away_them' });
    assert.deepEqual(S.reasonText(S.result(away(['N']))), { key: 'reason_away_us' });
    assert.deepEqual(S.reasonText(S.result(away([]))), { key: 'reason_away_seat', seat: 'N' });
    assert.deepEqual(S.reasonText(S.result(end(['S'], 'S', 'surrender'))), { key: 'reason_surrender_them' }, 'a surrender stays one');
    const drawn = run(inBattle(), update({ view: hfView({ turn: null, status: { state: 'draw', winner: null, reason: 'no_combat' } }) }));
    assert.deepEqual(S.reasonText(S.result(drawn)), { key: 'reason_no_combat' });
  });

  test('casualties (§7): our losses by rank; the enemy\'s as backs, naming only a fallen commander', () => {
    const s = inBattle();
    const c = S.casualties(s);
    assert.deepEqual(Object.keys(c).sort(), ['N', 'S']);
    assert.equal(c.S.left, 3);
    assert.equal(c.S.lost, 22);
    assert.equal(c.S.ranks.length, 22, 'all our losses named');
    assert.ok(!c.S.ranks.includes('9') && !c.S.ranks.includes('F'));
    assert.equal(c.N.lost, 22);
    assert.deepEqual(c.N.ranks, [], 'the enemy\'s losses are backs');
    const flag = run(s, update({ events: [{ type: 'flag_revealed', seat: 'N', station: 'D1' }], view: hfView({ flags_revealed: ['N'], pieces: { ...hfView().pieces, D1: 'NF' } }) }));
    assert.deepEqual(S.casualties(flag).N.ranks, ['9'], 'the commander whose fall showed the flag');
    const end = run(s, update({ view: hfView({ turn: null, status: { state: 'won', winner: 'S', reason: 'flag_captured' }, pieces: { C7: 'S9', A7: 'S1', B12: 'SF', C6: 'N8', E6: 'N1' } }) }));
    const all = S.casualties(end).N;
    assert.equal(all.lost, 23);
    assert.equal(all.ranks.length, 23, 'everything is revealed at the end');
    assert.ok(all.ranks.includes('F'));
  });

  test('a four-player room is unchanged: four seats and teams', () => {
    const s = run(S.initialState('r4'), { type: 'room', room: 'r4', kind: 'casual', options: {}, phase: 'waiting', seats: { N: null, E: null, S: null, W: null }, you: { seats: ['S'] } });
    assert.equal(S.variantOf(s), 'four_player');
    assert.deepEqual(S.seatsOf(s), ['N', 'E', 'S', 'W']);
    assert.equal(S.myTeam(s), 'NS');
  });
});

// ---------- the replay engine (hidden-front.md §4–§5)

/** A record from a few pieces (the replay does not check deployments). */
function record(south, north, actions, options = {}) {
  return {
    variant: 'hidden_front', options: { flag_capture: 'any', mines: 'mutual', ...options },
    deployments: [{ seat: 'S', pieces: south }, { seat: 'N', pieces: north }], actions,
  };
}
const move = (from, to) => ({ type: 'move', from, to });
const last = (states) => states[states.length - 1];

describe('the replay engine for Hidden Front records', () => {
  test('South moves first; turns alternate; steps and steps since combat count', () => {
    const st = replayRecord(record({ A7: '5', B12: 'F' }, { E6: '4', D1: 'F' }, [move('A7', 'A6'), move('E6', 'E5')]));
    assert.equal(st[0].turn, 'S');
    assert.equal(st[1].turn, 'N');
    assert.equal(st[2].turn, 'S');
    assert.equal(st[2].steps, 2);
    assert.equal(st[2].quiet, 2);
    assert.deepEqual(st[2].pieces, { A6: 'S5', B12: 'SF', E5: 'N4', D1: 'NF' });
  });

  test('a combat resets the quiet count; the commander\'s fall reveals its flag', () => {
    const st = replayRecord(record({ A6: '9', B12: 'F', E12: '1' }, { A5: '8', D1: 'F', E1: '2' }, [move('E12', 'E11'), move('A5', 'A6')]));
    const s = last(st);
    assert.equal(s.quiet, 0);
    assert.deepEqual(s.flags, []);
    const st2 = replayRecord(record({ A6: '8', B12: 'F', E12: '1' }, { A5: '9', D1: 'F', E1: '2', C1: 'B' }, [move('A6', 'A5'), move('E1', 'E2'), move('E12', 'E11'), move('C1', 'C2')]));
    assert.equal(st2[1].notes[0].combat, 'defender_won');
    const st3 = replayRecord(record({ A6: '9', B12: 'F', E12: '1' }, { A5: 'B', D1: 'F', E1: '2' }, [move('A6', 'A5')]));
    assert.deepEqual(st3[1].flags, ['S'], 'a commander lost to a bomb shows the flag');
    assert.equal(st3[1].notes[1].type, 'flag_revealed');
  });

  test('a flag capture wins at once, also by a bomb (both removed)', () => {
    const st = replayRecord(record({ C2: '1', B12: 'F', E12: '3' }, { D1: 'F', A1: '3' }, [move('C2', 'C1'), move('A1', 'A2'), move('C1', 'D1')]));
    assert.deepEqual(last(st).over, { state: 'won', winner: 'S', reason: 'flag_captured' });
    const bomb = replayRecord(record({ D2: 'B', B12: 'F', E12: '3' }, { D1: 'F', A1: '3' }, [move('D2', 'D1')]));
    assert.deepEqual(last(bomb).over, { state: 'won', winner: 'S', reason: 'flag_captured' });
    assert.equal(last(bomb).pieces.D1, undefined);
    assert.equal(last(bomb).notes[0].combat, 'both_removed');
  });

  test('mines are mutual by default; an engineer clears one; invincible keeps it', () => {
    const st = replayRecord(record({ A3: '7', B12: 'F', E12: '3' }, { A2: 'M', D1: 'F', E1: '3' }, [move('A3', 'A2')]));
    assert.equal(last(st).pieces.A2, undefined);
    assert.equal(last(st).pieces.A3, undefined);
    const inv = replayRecord(record({ A3: '7', B12: 'F', E12: '3' }, { A2: 'M', D1: 'F', E1: '3' }, [move('A3', 'A2')], { mines: 'invincible' }));
    assert.equal(last(inv).pieces.A2, 'NM');
    const eng = replayRecord(record({ A3: '1', B12: 'F', E12: '3' }, { A2: 'M', D1: 'F', E1: '3' }, [move('A3', 'A2')]));
    assert.equal(last(eng).pieces.A2, 'S1');
  });

  test('no legal move at the start of a turn loses', () => {
    // North has only its flag and a mine left to move after South's move.
    const st = replayRecord(record({ A7: '5', B12: 'F' }, { D1: 'F', A1: 'M' }, [move('A7', 'A6')]));
    assert.deepEqual(last(st).over, { state: 'won', winner: 'S', reason: 'no_legal_move' });
    const start = replayRecord(record({ B12: 'F' }, { D1: 'F', A1: '3' }, []));
    assert.deepEqual(start[0].over, { state: 'won', winner: 'N', reason: 'no_legal_move' }, 'South without a move at the start');
  });

  test('the third timeout loses, unless the opponent then has no legal move', () => {
    const t = { type: 'timeout' };
    const st = replayRecord(record({ A7: '5', B12: 'F' }, { E6: '4', D1: 'F' }, [t, move('E6', 'E5'), t, move('E5', 'E4'), t]));
    assert.deepEqual(st[4].skips, { S: 2, N: 0 });
    assert.equal(st[4].over, null);
    assert.deepEqual(last(st).over, { state: 'won', winner: 'N', reason: 'timeouts' });
    // North's last piece went into a headquarters (it never moves again): after South's third
    // timeout North has no legal move, and South wins.
    const stuck = replayRecord(record({ A7: '5', B12: 'F' }, { A2: '4', D1: 'F' }, [t, move('A2', 'A1'), t, move('A1', 'B1'), t]));
    assert.deepEqual(last(stuck).skips, { S: 3, N: 0 });
    assert.deepEqual(last(stuck).over, { state: 'won', winner: 'S', reason: 'no_legal_move' });
  });

  test('the 100th step without combat draws, unless it leaves the opponent without a move', () => {
    const back = [move('A7', 'A8'), move('E6', 'E5'), move('A8', 'A7'), move('E5', 'E6')];
    const actions = Array.from({ length: 25 }, () => back).flat();
    const st = replayRecord(record({ A7: '5', B12: 'F' }, { E6: '4', D1: 'F' }, actions));
    assert.equal(st[99].over, null);
    assert.equal(st[99].quiet, 99);
    assert.deepEqual(last(st).over, { state: 'draw', winner: null, reason: 'no_combat' });
    assert.equal(last(st).steps, 100);
  });

  test('a draw offer lapses when the opponent\'s turn ends; an acceptance draws', () => {
    const st = replayRecord(record({ A7: '5', B12: 'F' }, { E6: '4', D1: 'F' }, [
      { type: 'offer_draw', seat: 'S' }, move('A7', 'A6'), move('E6', 'E5'),
    ]));
    assert.equal(st[2].offer, 'S', 'our own move does not end the offer');
    assert.equal(st[3].offer, null);
    assert.deepEqual(st[3].notes.map(n => n.type), ['moved', 'draw_offer_expired']);
    const acc = replayRecord(record({ A7: '5', B12: 'F' }, { E6: '4', D1: 'F' }, [{ type: 'offer_draw', seat: 'N' }, { type: 'accept_draw', seat: 'S' }]));
    assert.deepEqual(last(acc).over, { state: 'draw', winner: null, reason: 'agreement' });
  });

  test('surrender: the other side wins', () => {
    const st = replayRecord(record({ A7: '5', B12: 'F' }, { E6: '4', D1: 'F' }, [{ type: 'surrender', seat: 'N' }]));
    assert.deepEqual(last(st).over, { state: 'won', winner: 'S', reason: 'surrender' });
  });
});
