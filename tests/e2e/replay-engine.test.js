// The replay viewer rebuilds positions in the browser from a game record. Check it against the
// server's own rules engine (`siguo rules moves` / `siguo rules play`) over random games.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { buildServer, binaryPath } from './harness.js';
import { replayRecord } from '../../static/js/replay-engine.js';
import { STATIONS, SEATS } from '../../static/js/board.js';

before(() => buildServer());

function referee(cmd, input) {
  const r = spawnSync(binaryPath(), ['rules', cmd], { input: JSON.stringify(input), encoding: 'utf8' });
  const out = JSON.parse(r.stdout);
  if (out.error) throw new Error(JSON.stringify(out.error));
  return out;
}

function rng(seed) {
  return () => {
    seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomDeployment(seat, rand) {
  const free = [...STATIONS.values()].filter(s => s.seat === seat && s.kind !== 'camp').map(s => s.name);
  const pieces = {};
  const take = (filter) => {
    const c = free.filter(filter);
    const s = c[Math.floor(rand() * c.length)];
    free.splice(free.indexOf(s), 1);
    return s;
  };
  pieces[take(s => s.endsWith('b6') || s.endsWith('d6'))] = 'F';
  for (let i = 0; i < 3; i++) pieces[take(s => s.endsWith('5') || s.endsWith('6'))] = 'M';
  for (let i = 0; i < 2; i++) pieces[take(s => !s.endsWith('1'))] = 'B';
  const rest = ['9', '8', '7', '7', '6', '6', '5', '5', '4', '4', '3', '3', '3', '2', '2', '2', '1', '1', '1'];
  for (const r of rest) pieces[take(() => true)] = r;
  return { seat, pieces };
}

function playRandomGame(seed, options) {
  const rand = rng(seed);
  const deployments = SEATS.map(s => randomDeployment(s, rand));
  const pieces = {};
  for (const d of deployments) for (const [k, v] of Object.entries(d.pieces)) pieces[k] = d.seat + v;
  let position = { turn: 'N', pieces, options };
  // Let the engine normalize the start (eliminations of seats without a move).
  position = referee('play', { position, actions: [] }).position;
  const positions = [position];
  const actions = [];
  for (let i = 0; i < 400; i++) {
    const { moves } = referee('moves', position);
    let action, refAction;
    const live = SEATS.filter(s => !(position.eliminated || []).includes(s));
    const r = rand();
    if (r < 0.04) { action = { type: 'timeout' }; refAction = 'timeout'; }
    else if (r < 0.05 && live.length) { const s = live[Math.floor(rand() * live.length)]; action = { type: 'surrender', seat: s }; refAction = 'surrender ' + s; }
    else {
      if (!moves.length) break;
      const m = moves[Math.floor(rand() * moves.length)];
      const [from, to] = m.split('-');
      action = { type: 'move', from, to };
      refAction = m;
    }
    const out = referee('play', { position, actions: [refAction] });
    position = out.position;
    positions.push(position);
    actions.push(action);
    if (out.status.state !== 'ongoing') return { deployments, actions, positions, status: out.status };
  }
  return { deployments, actions, positions, status: null };
}

for (const [seed, options] of [[1, {}], [2, { mines: 'mutual' }], [3, { flag_capture: 'engineer_only', max_skips: 2 }], [4, { max_steps: 60 }]]) {
  test(`replay viewer positions match the rules engine (seed ${seed})`, () => {
    const game = playRandomGame(seed, options);
    console.log(`seed ${seed}: ${game.actions.length} actions, status ${JSON.stringify(game.status)}`);
    const states = replayRecord({ options, deployments: game.deployments, actions: game.actions });
    assert.equal(states.length, game.positions.length);
    for (let i = 0; i < states.length; i++) {
      const js = states[i], ref = game.positions[i];
      assert.deepEqual(js.pieces, ref.pieces, `pieces after action ${i}`);
      assert.deepEqual(Object.keys(js.eliminated).sort(), [...(ref.eliminated || [])].sort(), `eliminated after action ${i}`);
      assert.equal(js.steps, ref.steps ?? 0, `steps after action ${i}`);
      if (!js.over) assert.equal(js.turn, ref.turn, `turn after action ${i}`);
    }
    if (game.status) {
      const last = states[states.length - 1];
      assert.ok(last.over, 'the replay sees the game end');
      assert.equal(last.over.state, game.status.state);
      assert.equal(last.over.winner ?? null, game.status.winner ?? null);
    }
  });
}
