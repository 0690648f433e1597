// Replays a finished game's record (all ranks known) position by position, for the replay viewer.
// The four-player game follows rules.md §1, §6, §7: combat, flag capture, commander death
// revealing the flag, skips, surrender, eliminations (also "no legal move" at the start of a
// turn), the step limit. Hidden Front (`record.variant = "hidden_front"`) follows
// hidden-front.md §4–§5: South first, a flag capture or no legal move wins, the third timeout
// loses (unless the opponent then has no move), 100 steps without combat draw, draw offers lapse.
import { LINKS, STATIONS, SEATS, TEAM, HF_LINKS, HF_STATIONS } from './geometry.js';

function neighbours(links) {
  const m = new Map();
  for (const l of links) {
    if (!m.has(l.a)) m.set(l.a, []);
    if (!m.has(l.b)) m.set(l.b, []);
    m.get(l.a).push(l.b);
    m.get(l.b).push(l.a);
  }
  return m;
}

/** What the move check needs of a board: neighbours, stations, and who is on whose side. */
const FOUR = { nbrs: neighbours(LINKS), stations: STATIONS, side: (seat) => TEAM[seat] };
const HF = { nbrs: neighbours(HF_LINKS), stations: HF_STATIONS, side: (seat) => seat };

const LEVEL = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9 };

function clone(s) {
  return {
    pieces: { ...s.pieces }, turn: s.turn, eliminated: { ...s.eliminated }, fallen: { ...s.fallen }, skips: { ...s.skips },
    steps: s.steps, quiet: s.quiet, offer: s.offer, flags: [...s.flags], over: s.over, last: null, note: null,
  };
}

function hasLegalMove(s, seat, options, b = FOUR) {
  for (const [stn, code] of Object.entries(s.pieces)) {
    if (code[0] !== seat) continue;
    const rank = code[1];
    if (rank === 'M' || rank === 'F' || b.stations.get(stn).kind === 'hq') continue;
    // rules.md §5: a piece the flag_capture option forbids never enters an enemy headquarters
    const barred = (options.flag_capture === 'not_commander' && rank === '9')
      || (options.flag_capture === 'engineer_only' && rank !== '1');
    for (const n of b.nbrs.get(stn) || []) {
      const there = b.stations.get(n);
      if (barred && there.kind === 'hq' && b.side(there.seat) !== b.side(seat)) continue;
      const other = s.pieces[n];
      if (!other) return true;
      if (b.side(other[0]) === b.side(seat) || there.kind === 'camp') continue;
      if (other[1] === 'F') {
        if (options.flag_capture === 'not_commander' && rank === '9') continue;
        if (options.flag_capture === 'engineer_only' && rank !== '1') continue;
      }
      return true;
    }
  }
  return false;
}

function eliminate(s, seat, reason, notes) {
  if (s.eliminated[seat]) return;
  s.eliminated[seat] = reason;
  // its pieces leave the board; kept as they stood, for the full reveal at the end
  const fallen = {};
  for (const [stn, code] of Object.entries(s.pieces)) if (code[0] === seat) { fallen[stn] = code; delete s.pieces[stn]; }
  s.fallen = { ...s.fallen, [seat]: fallen };
  notes.push({ type: 'eliminated', seat, reason });
  for (const team of ['NS', 'EW']) {
    const seats = SEATS.filter(x => TEAM[x] === team);
    if (seats.every(x => s.eliminated[x]) && !s.over) {
      s.over = { state: 'won', winner: team === 'NS' ? 'EW' : 'NS', reason: 'elimination' };
    }
  }
}

function advance(s, options, notes) {
  if (s.over) { s.turn = null; return; }
  let seat = s.turn;
  for (let i = 0; i < 8; i++) {
    seat = SEATS[(SEATS.indexOf(seat) + 1) % 4];
    if (s.eliminated[seat]) continue;
    if (!hasLegalMove(s, seat, options)) {
      eliminate(s, seat, 'no_legal_move', notes);
      if (s.over) { s.turn = null; return; }
      continue;
    }
    s.turn = seat;
    return;
  }
  s.turn = null;
}

function combat(att, def, options) {
  const a = att[1], d = def[1];
  if (a === 'B' || d === 'B') return d === 'F' ? 'flag_bombed' : 'both_removed';
  if (d === 'F') return 'flag_captured';
  if (d === 'M') {
    if (a === '1') return 'attacker_won';
    return options.mines === 'mutual' ? 'both_removed' : 'defender_won';
  }
  const la = LEVEL[a], ld = LEVEL[d];
  if (la > ld) return 'attacker_won';
  if (la < ld) return 'defender_won';
  return 'both_removed';
}

/**
 * Move a piece in `n` (a fresh copy) with its combat; notes what happened. Returns the attacker,
 * the defender (or null) and the outcome (null without combat), or null for a missing piece.
 */
function applyMove(n, action, options, notes) {
  const att = n.pieces[action.from];
  const def = n.pieces[action.to];
  n.last = [action.from, action.to];
  if (!att) { notes.push({ type: 'error' }); return null; }
  delete n.pieces[action.from];
  if (!def) {
    n.pieces[action.to] = att;
    notes.push({ type: 'moved', seat: att[0], from: action.from, to: action.to, combat: null, piece: att });
    return { att, def: null, outcome: null };
  }
  const outcome = combat(att, def, options);
  const removed = [];
  if (outcome === 'attacker_won' || outcome === 'flag_captured') { removed.push(def); n.pieces[action.to] = att; }
  else if (outcome === 'defender_won') removed.push(att);
  else { removed.push(att, def); delete n.pieces[action.to]; }
  const shown = outcome === 'flag_captured' ? 'attacker_won' : outcome === 'flag_bombed' ? 'both_removed' : outcome;
  notes.push({ type: 'moved', seat: att[0], from: action.from, to: action.to, combat: shown, piece: att, defender: def });
  for (const p of removed) {
    if (p[1] === '9' && !n.flags.includes(p[0])) { n.flags.push(p[0]); notes.push({ type: 'flag_revealed', seat: p[0] }); }
  }
  return { att, def, outcome };
}

/** The draw-offer actions, common to both games; true if handled. */
function drawAction(n, action, notes) {
  switch (action.type) {
    case 'agreed_draw':
      n.over = { state: 'draw', winner: null, reason: 'agreement' };
      n.turn = null;
      notes.push({ type: 'draw' });
      return true;
    case 'offer_draw': n.offer = action.seat; notes.push({ type: 'draw_offered', seat: action.seat }); return true;
    case 'accept_draw': notes.push({ type: 'draw_accepted', seat: action.seat }); return true;
    case 'decline_draw': n.offer = null; notes.push({ type: 'draw_declined', seat: action.seat }); return true;
    default: return false;
  }
}

/**
 * Build every position of a record: returns [{pieces, turn, eliminated, fallen, skips, steps,
 * quiet, flags, over, last, notes}] where index 0 is the deployment and index i the position after
 * action i. `fallen` keeps, per eliminated seat, the pieces it had when it was eliminated.
 */
export function replayRecord(record) {
  return record.variant === 'hidden_front' ? replayHiddenFront(record) : replayFourPlayer(record);
}

function start(record, skips, turn) {
  const s = { pieces: {}, turn, eliminated: {}, fallen: {}, skips, steps: 0, quiet: 0, offer: null, flags: [], over: null };
  for (const d of record.deployments || []) {
    for (const [stn, rank] of Object.entries(d.pieces || {})) s.pieces[stn] = d.seat + rank;
  }
  return s;
}

function replayFourPlayer(record) {
  const options = { flag_capture: 'any', mines: 'invincible', max_skips: 5, max_steps: 300, ...(record.options || {}) };
  let s = start(record, { N: 0, E: 0, S: 0, W: 0 }, 'W');
  const notes0 = [];
  // Seats without a legal move at the start are eliminated; North moves first.
  advance(s, options, notes0);
  const out = [{ ...clone(s), notes: notes0, action: null }];
  for (const action of record.actions || []) {
    const n = clone(s);
    const notes = [];
    const type = action.type;
    if (type === 'move') {
      const m = applyMove(n, action, options, notes);
      if (m && m.def && m.def[1] === 'F') eliminate(n, m.def[0], 'flag_captured', notes);
      n.steps += 1;
      if (!n.over && n.steps >= options.max_steps) n.over = { state: 'draw', winner: null, reason: 'step_limit' };
      advance(n, options, notes);
    } else if (type === 'timeout') {
      const seat = n.turn;
      if (seat) {
        n.skips[seat] = (n.skips[seat] || 0) + 1;
        notes.push({ type: 'skipped', seat, skips: n.skips[seat] });
        if (n.skips[seat] >= options.max_skips) eliminate(n, seat, 'too_many_skips', notes);
      }
      n.steps += 1;
      if (!n.over && n.steps >= options.max_steps) n.over = { state: 'draw', winner: null, reason: 'step_limit' };
      advance(n, options, notes);
    } else if (type === 'surrender') {
      eliminate(n, action.seat, 'surrendered', notes);
      if (n.turn === action.seat || n.over) advance(n, options, notes);
    } else {
      drawAction(n, action, notes);
    }
    n.notes = notes;
    n.action = action;
    out.push(n);
    s = n;
  }
  return out;
}

// ---------- Hidden Front (hidden-front.md §5)

export const HF_TIMEOUT_LIMIT = 3;
export const HF_QUIET_LIMIT = 100;
const other = (seat) => (seat === 'S' ? 'N' : 'S');

function hfWon(n, winner, reason) {
  n.over = { state: 'won', winner, reason };
  n.turn = null;
}

/** The turn of `seat` begins; without a legal move it loses. */
function hfStartTurn(n, seat, options) {
  if (hasLegalMove(n, seat, options, HF)) n.turn = seat;
  else hfWon(n, other(seat), 'no_legal_move');
}

/** `mover`'s turn ended by a move (no flag capture) or a timeout: in the order of §5. */
function hfEndStep(n, mover, timedOut, options, notes) {
  const next = other(mover);
  if (n.offer === next) { n.offer = null; notes.push({ type: 'draw_offer_expired', seat: next }); }
  if (timedOut && n.skips[mover] >= HF_TIMEOUT_LIMIT && hasLegalMove(n, next, options, HF)) hfWon(n, next, 'timeouts');
  else if (n.quiet >= HF_QUIET_LIMIT && hasLegalMove(n, next, options, HF)) {
    n.over = { state: 'draw', winner: null, reason: 'no_combat' };
    n.turn = null;
  } else hfStartTurn(n, next, options);
}

function hfAction(n, action, options, notes) {
  switch (action.type) {
    case 'move': {
      const mover = n.turn;
      const m = applyMove(n, action, options, notes);
      n.steps += 1;
      n.quiet = m && m.def ? 0 : n.quiet + 1;
      if (m && m.def && m.def[1] === 'F') hfWon(n, mover, 'flag_captured');
      else hfEndStep(n, mover, false, options, notes);
      return;
    }
    case 'timeout': {
      const seat = n.turn;
      n.skips[seat] += 1;
      n.steps += 1;
      n.quiet += 1;
      notes.push({ type: 'skipped', seat, skips: n.skips[seat] });
      hfEndStep(n, seat, true, options, notes);
      return;
    }
    case 'surrender': hfWon(n, other(action.seat), 'surrender'); return;
    case 'accept_draw':
      n.offer = null;
      n.over = { state: 'draw', winner: null, reason: 'agreement' };
      n.turn = null;
      notes.push({ type: 'draw_accepted', seat: action.seat });
      return;
    default: drawAction(n, action, notes);
  }
}

function replayHiddenFront(record) {
  const options = { flag_capture: 'any', mines: 'mutual', ...(record.options || {}) };
  let s = start(record, { S: 0, N: 0 }, 'S');
  hfStartTurn(s, 'S', options);
  const out = [{ ...clone(s), notes: [], action: null }];
  for (const action of record.actions || []) {
    const n = clone(s);
    const notes = [];
    if (!n.over) hfAction(n, action, options, notes);
    n.notes = notes;
    n.action = action;
    out.push(n);
    s = n;
  }
  return out;
}
