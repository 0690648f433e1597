// Replays a finished game's record (all ranks known) position by position, for the replay viewer.
// It follows rules.md §1, §6, §7: combat, flag capture, commander death revealing the flag,
// skips, surrender, eliminations (also "no legal move" at the start of a turn), the step limit.
import { LINKS, STATIONS, SEATS, TEAM } from './board.js';

const NEIGHBOURS = new Map();
for (const l of LINKS) {
  if (!NEIGHBOURS.has(l.a)) NEIGHBOURS.set(l.a, []);
  if (!NEIGHBOURS.has(l.b)) NEIGHBOURS.set(l.b, []);
  NEIGHBOURS.get(l.a).push(l.b);
  NEIGHBOURS.get(l.b).push(l.a);
}

const LEVEL = { 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7, 8: 8, 9: 9 };

function clone(s) {
  return {
    pieces: { ...s.pieces }, turn: s.turn, eliminated: { ...s.eliminated }, skips: { ...s.skips },
    steps: s.steps, flags: [...s.flags], over: s.over, last: null, note: null,
  };
}

function hasLegalMove(s, seat, options) {
  for (const [stn, code] of Object.entries(s.pieces)) {
    if (code[0] !== seat) continue;
    const rank = code[1];
    if (rank === 'M' || rank === 'F' || STATIONS.get(stn).kind === 'hq') continue;
    // rules.md §5: a piece the flag_capture option forbids never enters an enemy headquarters
    const barred = (options.flag_capture === 'not_commander' && rank === '9')
      || (options.flag_capture === 'engineer_only' && rank !== '1');
    for (const n of NEIGHBOURS.get(stn) || []) {
      if (barred && STATIONS.get(n).kind === 'hq' && TEAM[n[0]] !== TEAM[seat]) continue;
      const other = s.pieces[n];
      if (!other) return true;
      if (TEAM[other[0]] === TEAM[seat] || STATIONS.get(n).kind === 'camp') continue;
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
  for (const [stn, code] of Object.entries(s.pieces)) if (code[0] === seat) delete s.pieces[stn];
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
 * Build every position of a record: returns [{pieces, turn, eliminated, skips, steps, flags, over, last, notes}]
 * where index 0 is the deployment and index i the position after action i.
 */
export function replayRecord(record) {
  const options = { flag_capture: 'any', mines: 'invincible', max_skips: 5, max_steps: 300, ...(record.options || {}) };
  let s = { pieces: {}, turn: 'N', eliminated: {}, skips: { N: 0, E: 0, S: 0, W: 0 }, steps: 0, flags: [], over: null };
  for (const d of record.deployments || []) {
    for (const [stn, rank] of Object.entries(d.pieces || {})) s.pieces[stn] = d.seat + rank;
  }
  const notes0 = [];
  // Seats without a legal move at the start are eliminated; North moves first.
  s.turn = 'W';
  advance(s, options, notes0);
  const out = [{ ...clone(s), notes: notes0, action: null }];
  for (const action of record.actions || []) {
    const n = clone(s);
    const notes = [];
    const type = action.type;
    if (type === 'move') {
      const att = n.pieces[action.from];
      const def = n.pieces[action.to];
      n.last = [action.from, action.to];
      if (!att) { notes.push({ type: 'error' }); }
      else if (!def) {
        delete n.pieces[action.from];
        n.pieces[action.to] = att;
        notes.push({ type: 'moved', seat: att[0], from: action.from, to: action.to, combat: null, piece: att });
      } else {
        const outcome = combat(att, def, options);
        delete n.pieces[action.from];
        const removed = [];
        if (outcome === 'attacker_won' || outcome === 'flag_captured') { removed.push(def); n.pieces[action.to] = att; }
        else if (outcome === 'defender_won') removed.push(att);
        else { removed.push(att, def); delete n.pieces[action.to]; }
        const shown = outcome === 'flag_captured' ? 'attacker_won' : outcome === 'flag_bombed' ? 'both_removed' : outcome;
        notes.push({ type: 'moved', seat: att[0], from: action.from, to: action.to, combat: shown, piece: att, defender: def });
        for (const p of removed) {
          if (p[1] === '9' && !n.flags.includes(p[0])) { n.flags.push(p[0]); notes.push({ type: 'flag_revealed', seat: p[0] }); }
        }
        if (def[1] === 'F') eliminate(n, def[0], 'flag_captured', notes);
      }
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
    } else if (type === 'agreed_draw') {
      n.over = { state: 'draw', winner: null, reason: 'agreement' };
      n.turn = null;
      notes.push({ type: 'draw' });
    } else if (type === 'offer_draw') {
      notes.push({ type: 'draw_offered', seat: action.seat });
    } else if (type === 'accept_draw') {
      notes.push({ type: 'draw_accepted', seat: action.seat });
    } else if (type === 'decline_draw') {
      notes.push({ type: 'draw_declined', seat: action.seat });
    }
    n.notes = notes;
    n.action = action;
    out.push(n);
    s = n;
  }
  return out;
}
