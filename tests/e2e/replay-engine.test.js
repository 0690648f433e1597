// The replay viewer rebuilds positions in the browser from a game record. Check it against the
// server's own rules engine (`siguo rules moves` / `siguo rules play`) over random games of both
// games (Hidden Front: `"variant": "hidden_front"` positions, hidden-front.md §8).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { buildServer, binaryPath } from './harness.js';
import { replayRecord } from '../../static/js/replay-engine.js';
import { boardOf } from '../../static/js/geometry.js';

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

/** A random legal deployment of `seat` (rules.md §4; Hidden Front §3: no mine in a headquarters). */
function randomDeployment(seat, rand, variant) {
  const { stations } = boardOf(variant);
  const hf = variant === 'hidden_front';
  const free = [...stations.values()].filter(s => s.seat === seat && s.kind !== 'camp').map(s => s.name);
  const local = (name) => stations.get(name).local;
  const pieces = {};
  const take = (filter) => {
    const c = free.filter(filter);
    const s = c[Math.floor(rand() * c.length)];
    free.splice(free.indexOf(s), 1);
    return s;
  };
  pieces[take(s => ['b6', 'd6'].includes(local(s)))] = 'F';
  for (let i = 0; i < 3; i++) pieces[take(s => /[56]$/.test(local(s)) && !(hf && stations.get(s).kind === 'hq'))] = 'M';
  for (let i = 0; i < 2; i++) pieces[take(s => !local(s).endsWith('1'))] = 'B';
  const rest = ['9', '8', '7', '7', '6', '6', '5', '5', '4', '4', '3', '3', '3', '2', '2', '2', '1', '1', '1'];
  for (const r of rest) pieces[take(() => true)] = r;
  return { seat, pieces };
}

function playRandomGame(seed, options, variant = 'four_player') {
  const rand = rng(seed);
  const SEATS = boardOf(variant).seats;
  const deployments = SEATS.map(s => randomDeployment(s, rand, variant));
  const pieces = {};
  for (const d of deployments) for (const [k, v] of Object.entries(d.pieces)) pieces[k] = d.seat + v;
  let position = variant === 'hidden_front' ? { variant, turn: 'S', pieces, options } : { turn: 'N', pieces, options };
  // Let the engine normalize the start (eliminations of seats without a move).
  position = referee('play', { position, actions: [] }).position;
  const positions = [position];
  const actions = [];
  for (let i = 0; i < 400; i++) {
    const { moves } = referee('moves', position);
    let action, refAction;
    const live = SEATS.filter(s => !(position.eliminated || []).includes(s));
    const r = rand();
    if (r < timeoutRate(variant)) { action = { type: 'timeout' }; refAction = 'timeout'; }
    else if (r < timeoutRate(variant) + surrenderRate(variant) && live.length) { const s = live[Math.floor(rand() * live.length)]; action = { type: 'surrender', seat: s }; refAction = 'surrender ' + s; }
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

/** Hidden Front loses at the third timeout: fewer of them, so that games also end otherwise. */
const timeoutRate = (variant) => (variant === 'hidden_front' ? 0.01 : 0.04);
/** Hidden Front's games end at the first surrender: rarer, so that they reach combat and the other ends. */
const surrenderRate = (variant) => (variant === 'hidden_front' ? 0.001 : 0.01);

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

for (const [seed, options] of [[11, {}], [12, { mines: 'invincible' }], [13, { flag_capture: 'engineer_only' }], [14, {}], [15, {}]]) {
  test(`replay viewer positions match the rules engine for Hidden Front (seed ${seed})`, () => {
    const variant = 'hidden_front';
    const game = playRandomGame(seed, options, variant);
    console.log(`hidden front seed ${seed}: ${game.actions.length} actions, status ${JSON.stringify(game.status)}`);
    const states = replayRecord({ variant, options, deployments: game.deployments, actions: game.actions });
    assert.equal(states.length, game.positions.length);
    for (let i = 0; i < states.length; i++) {
      const js = states[i], ref = game.positions[i];
      assert.deepEqual(js.pieces, ref.pieces, `pieces after action ${i}`);
      assert.equal(js.steps, ref.steps ?? 0, `steps after action ${i}`);
      assert.equal(js.quiet, ref.quiet_steps ?? 0, `steps without combat after action ${i}`);
      assert.deepEqual({ S: 0, N: 0, ...(ref.timeouts || {}) }, js.skips, `timeouts after action ${i}`);
      if (!js.over) assert.equal(js.turn, ref.turn, `turn after action ${i}`);
    }
    if (game.status) {
      const last = states[states.length - 1];
      assert.deepEqual(last.over, game.status, 'the replay sees the same end');
    }
  });
}
