// The room page's state as a pure reducer: `reduce(state, message) → state`. Every server message
// the room page handles (docs/protocol.md §3–§9: room, snapshot, deployment, update, presence,
// chat, kicked, room_closed) and every local UI action ("ui/…") is one transition. No DOM, no
// socket, no timer, no translation here: what the page must do in the world (send, toast,
// navigate, fetch) is listed in the new state's `effects` (only those of the last transition),
// and the time is passed in where it matters (`remainingMs(state, now)`).
import { TEAM, boardOf, stationInfo } from '../geometry.js';

const PHASES = ['waiting', 'deploying', 'battle', 'finished'];

/** Events of an update that are written to the game log (the others only change state). */
const LOGGED = new Set([
  'moved', 'skipped', 'flag_revealed', 'eliminated', 'draw_offered', 'draw_declined', 'draw_accepted',
  'draw_offer_expired', 'deploy_confirmed', 'battle_started', 'escaped', 'game_over',
]);

/** Events also announced in the chat (as a system line). */
const ANNOUNCED = { flag_revealed: 'flag_revealed', eliminated: 'seat_eliminated' };

/**
 * The log of a game from its past events (`past_events` of a snapshot, docs/protocol.md §5) and
 * what we saw of each move's pieces then (`past_seen`, one `[attacker, defender]` per move): the
 * logged events, moves numbered by the battle's step as the live log numbers them (moves and
 * skips; a `turn` event's `steps` being the truth), each with what we knew of its pieces, so that
 * after a reload the log reads as it read live.
 */
export function logFromPast(s, events, seen = []) {
  let no = 0, k = 0;
  const out = [];
  for (const e of events) {
    if (e.type === 'turn' && Number.isInteger(e.steps)) no = e.steps;
    if (e.type === 'skipped') no += 1;
    if (e.type === 'moved') {
      no += 1;
      const [a, d] = (seen && seen[k++]) || [];
      const code = a || e.seat + '?';
      out.push({ ...e, no, attacker: known(s, code, e.seat), defender: e.combat ? known(s, d || null, d ? d[0] : null) : null });
    } else if (LOGGED.has(e.type)) out.push(e);
  }
  return out;
}

/** 托管: why the computer plays a seat ('asked' | 'away'), or null. */
export const autoOf = (s, seat) => {
  const info = (s.seats && s.seats[seat]) || (s.room && s.room.seats && s.room.seats[seat]);
  return (info && info.auto) || null;
};

/** A finished casual or practice game: the seats whose people asked for another. */
export const rematchSeats = (s) => (s.room && s.phase === 'finished' && s.room.rematch) || null;

export function initialState(roomId = null) {
  return {
    roomId, // the room this page shows (from the route, or learnt while joining)
    joining: false,
    room: null, // the last `room` message
    game: null, v: null, phase: null, view: null,
    deployments: {}, // own seats only: seat -> {seat, pieces}
    confirmed: [],
    clock: null,
    legal: {}, // origin -> destinations, for the seat to move if we control it
    seats: null, // from the snapshot
    you: { seats: [] },
    presence: {}, // seat -> online
    escaped: {}, // seat -> true
    selected: null,
    chatTab: 'room',
    lastPath: [],
    log: [], // events (see LOGGED), oldest first
    chat: [], // {from, seat, team, text} or {sys: key, seat}, oldest first
    results: null, // a finished ranked game's results, seat -> {outcome, points} (public, every seat)
    points: null, // {points, outcome, rating}: ours of `results` (null for a spectator or no results)
    swapError: null, // the error of the last refused swap
    recent: [], // the moves since (and including) our last one: {n, no (its step), seat, from, to, path, combat, attacker, defender}
    moveNo: 0, // the battle's step count (moves and skips): numbers the moves in the log and on the board
    marks: {}, // station -> what we believe an enemy piece is ('9'…'1', 'B', 'M', 'F', '?'); kept per game
    markMenu: null, // the station whose mark menu is open
    offeredAt: {}, // seat -> the step of its last draw offer seen (Hidden Front's 10-step rule)
    effects: [],
  };
}

// ---------- selectors (pure, used by the views and the wiring)

/** The game of the room: "four_player" or "hidden_front" (the room says; else the view). */
export const variantOf = (s) => (s.room && s.room.variant) || (s.view && s.view.variant) || 'four_player';
export const isHiddenFront = (s) => variantOf(s) === 'hidden_front';
/** The seats of the room's game: N E S W, or S N for Hidden Front. */
export const seatsOf = (s) => boardOf(variantOf(s)).seats;
/** Hidden Front: the third timeout loses (hidden-front.md §5). */
export const HF_TIMEOUT_LIMIT = 3;
/** Hidden Front: 100 steps without combat draw. */
export const HF_QUIET_LIMIT = 100;

export const mySeats = (s) => s.you.seats || [];
export const controls = (s, seat) => mySeats(s).includes(seat);
/** Our team ("NS" / "EW"); none in Hidden Front, where each side plays alone. */
export const myTeam = (s) => (mySeats(s)[0] && !isHiddenFront(s) ? TEAM[mySeats(s)[0]] : null);
export const seatInfo = (s, seat) => (s.seats && s.seats[seat]) || (s.room && s.room.seats && s.room.seats[seat]) || null;
export const options = (s) => (s.room && s.room.options) || (s.view && s.view.options) || {};
export const eliminated = (s) => new Set((s.view && s.view.eliminated) || []);
export const turn = (s) => (s.view && s.view.turn) || (s.clock && s.clock.phase === 'battle' ? s.clock.seat : null);
/** The phase to show: the game's, else the room's, else waiting. */
export const shownPhase = (s) => s.phase || (s.room && s.room.phase) || 'waiting';

export function myTurn(s) {
  const tu = turn(s);
  return !!(s.phase === 'battle' && tu && controls(s, tu) && s.legal && Object.keys(s.legal).length > 0);
}

/** The seat drawn at the bottom: ours (S or W first under dual control), else South. */
export function bottomSeat(s) {
  const mine = mySeats(s);
  for (const seat of ['S', 'W', 'N', 'E']) {
    if (mine.includes(seat)) return mine.length === 2 ? (mine.includes('S') ? 'S' : mine.includes('W') ? 'W' : mine[0]) : seat;
  }
  return 'S';
}

/** Milliseconds left on the running clock at server time `now`, or null. */
export function remainingMs(s, now) {
  if (!s.clock || s.clock.deadline == null) return null;
  return s.clock.deadline - now;
}

/** The pieces to draw: the view in battle, own deployments (and backs for the others) before. */
export function boardPieces(s) {
  if (s.view && (s.phase === 'battle' || s.phase === 'finished')) return withFallen(s.view);
  if (s.phase === 'deploying') {
    const p = {};
    const board = boardOf(variantOf(s));
    for (const seat of board.seats) {
      const mine = s.deployments[seat];
      if (mine) {
        for (const [stn, rank] of Object.entries(mine.pieces || mine)) p[stn] = seat + rank;
      } else if (seatInfo(s, seat)) {
        for (const st of board.stations.values()) if (st.seat === seat && st.kind !== 'camp') p[st.name] = seat + '?';
      }
    }
    return p;
  }
  return {};
}

/**
 * The view's pieces and, once the game is over, the pieces the eliminated seats had when they
 * fell (`view.fallen`: the full reveal), where no piece stands now.
 */
export function withFallen(view) {
  const pieces = view.pieces || {};
  if (!view.fallen) return pieces;
  const out = { ...pieces };
  for (const fallen of Object.values(view.fallen)) {
    for (const [stn, code] of Object.entries(fallen)) if (!out[stn]) out[stn] = code;
  }
  return out;
}

/** The counters of a view: skips per seat (Hidden Front writes them as `timeouts`). */
export const skipsOf = (view) => (view && (view.timeouts || view.skips)) || {};

/** Stations of the revealed flags (drawn with a marker). */
export function flagStations(s) {
  if (!s.view) return [];
  const out = [];
  for (const seat of s.view.flags_revealed || []) {
    for (const [stn, code] of Object.entries(s.view.pieces || {})) if (code[0] === seat && code[1] === 'F') out.push(stn);
  }
  return out;
}

/** What the board offers to click: {selectable, selected, targets}. */
export function selection(s) {
  if (s.phase === 'deploying') {
    const selectable = [];
    for (const seat of mySeats(s)) {
      const d = s.deployments[seat];
      if (!s.confirmed.includes(seat) && d) selectable.push(...Object.keys(d.pieces || d));
    }
    return { selectable, selected: s.selected, targets: [] };
  }
  if (s.phase === 'battle' && myTurn(s)) {
    return { selectable: Object.keys(s.legal || {}), selected: s.selected, targets: s.selected ? (s.legal[s.selected] || []) : [] };
  }
  return { selectable: [], selected: null, targets: [] };
}

/**
 * The name plate of every seat at server time `now`: {seat, info, me, running, remaining, low,
 * dead, online, note, skips, clockMs}. `note` says what the line under the name shows:
 * eliminated, escaped, skips, deployed, deploying, ready or null.
 */
export function plates(s, now) {
  const out = {};
  const tu = turn(s);
  const elim = eliminated(s);
  const o = options(s);
  const hf = isHiddenFront(s);
  for (const seat of seatsOf(s)) {
    const info = seatInfo(s, seat);
    const running = s.phase === 'battle' && tu === seat && !elim.has(seat);
    const remaining = running ? remainingMs(s, now) : null;
    const online = s.presence[seat] ?? (info ? info.online : undefined);
    let note = null;
    if (elim.has(seat)) note = 'eliminated';
    else if (s.escaped[seat] || (info && info.escaped)) note = 'escaped';
    else if (s.phase === 'battle' || s.phase === 'finished') note = 'skips';
    else if (s.phase === 'deploying') note = s.confirmed.includes(seat) ? 'deployed' : 'deploying';
    else if (info && info.ready) note = 'ready';
    out[seat] = {
      seat, info, me: controls(s, seat), running, remaining,
      low: running && remaining != null && remaining < 10000,
      dead: elim.has(seat),
      online: info && !info.bot ? !!online : undefined,
      note,
      skips: skipsOf(s.view)[seat] || 0,
      maxSkips: hf ? HF_TIMEOUT_LIMIT : o.max_skips ?? 5,
      clockMs: s.phase === 'battle' ? (running ? remaining : (o.move_seconds ?? 30) * 1000) : null,
    };
  }
  return out;
}

/**
 * Hidden Front: steps to wait before `seat` may offer a draw again (an offer at step n allows the
 * next at n + 10); 0 when it may, or in the four-player game.
 */
export function drawOfferWait(s, seat) {
  if (!isHiddenFront(s) || s.offeredAt[seat] == null || !s.view) return 0;
  return Math.max(0, s.offeredAt[seat] + HF_REOFFER_STEPS - (s.view.steps || 0));
}
export const HF_REOFFER_STEPS = 10;

/** Hidden Front's counters for the status line: {steps, quiet, limit, timeouts: {S, N}, maxTimeouts}. */
export function hfCounters(s) {
  const v = s.view || {};
  return {
    steps: v.steps || 0, quiet: v.quiet_steps || 0, limit: HF_QUIET_LIMIT,
    timeouts: { S: skipsOf(v).S || 0, N: skipsOf(v).N || 0 }, maxTimeouts: HF_TIMEOUT_LIMIT,
  };
}

/** The outcome for this viewer: {outcome: 'won'|'lost'|'winner'|'draw'|'over', winner, reason}. */
export function result(s) {
  const status = s.view && s.view.status;
  const team = myTeam(s);
  const reason = (status && status.reason) || null;
  if (status && status.state === 'won' && isHiddenFront(s)) {
    // The winner is a seat: S or N. A side away past the grace (hidden-front.md §5) ends the
    // game as a surrender after its `escaped` event: told as its absence.
    const loser = hfOpponent(status.winner);
    const why = reason === 'surrender' && s.escaped[loser] ? 'away' : reason;
    const mine = mySeats(s);
    if (mine.length) return { outcome: mine.includes(status.winner) ? 'won' : 'lost', winner: status.winner, reason: why };
    return { outcome: 'winner', winner: status.winner, reason: why };
  }
  if (status && status.state === 'won') {
    if (team) return { outcome: status.winner === team ? 'won' : 'lost', winner: status.winner, reason };
    return { outcome: 'winner', winner: status.winner, reason };
  }
  if (status && status.state === 'draw') return { outcome: 'draw', winner: null, reason };
  return { outcome: 'over', winner: null, reason };
}

/**
 * Why the game ended, told from this viewer's side: a key of i18n and its team (the losing team
 * for an elimination seen by a spectator).
 */
export function reasonText(r, team) {
  if (!r.reason) return null;
  if (HF_SIDED.has(r.reason) && r.winner && r.winner.length === 1) {
    // Hidden Front: what happened to the losing side, told from ours.
    if (r.outcome === 'won') return { key: 'reason_' + r.reason + '_them' };
    if (r.outcome === 'lost') return { key: 'reason_' + r.reason + '_us' };
    return { key: 'reason_' + r.reason + '_seat', seat: hfOpponent(r.winner) };
  }
  if (r.reason === 'elimination') {
    if (r.outcome === 'won') return { key: 'reason_elimination_them' };
    if (r.outcome === 'lost') return { key: 'reason_elimination_us' };
    if (r.winner) return { key: 'reason_elimination_team', team: r.winner === 'NS' ? 'EW' : 'NS' };
  }
  void team;
  return { key: 'reason_' + r.reason };
}

/** Hidden Front's other seat (S against N). */
const hfOpponent = (seat) => (seat === 'S' ? 'N' : 'S');

/** Hidden Front's reasons of a win, each told as what happened to the loser. */
const HF_SIDED = new Set(['flag_captured', 'no_legal_move', 'timeouts', 'surrender', 'away']);

/** The pieces of one seat at the start: rank -> count (rules.md §3). */
export const COMPOSITION = { 9: 1, 8: 1, 7: 2, 6: 2, 5: 2, 4: 2, 3: 3, 2: 3, 1: 3, B: 2, M: 3, F: 1 };
const PIECES_PER_SEAT = 25;

/**
 * Casualties per seat from the view: {seat: {left, lost, ranks}} where `ranks` are the lost
 * pieces we may name — every rank for the seats whose pieces we see, only the commander (its flag
 * was revealed) for the others — and `lost` counts them all.
 */
export function casualties(s) {
  const out = {};
  if (!s.view || !s.view.pieces) return out;
  const flags = new Set(s.view.flags_revealed || []);
  for (const seat of seatsOf(s)) {
    const left = {};
    let n = 0, hidden = 0;
    for (const code of Object.values(s.view.pieces)) {
      if (code[0] !== seat) continue;
      n += 1;
      if (code[1] === '?') hidden += 1; else left[code[1]] = (left[code[1]] || 0) + 1;
    }
    const lost = PIECES_PER_SEAT - n;
    const ranks = [];
    // once the game is over every piece is revealed: what is not on the board was lost
    const over = !!(s.view.status && s.view.status.state && s.view.status.state !== 'ongoing');
    if (hidden === 0 && (n > 0 || controls(s, seat) || over)) {
      for (const [rank, count] of Object.entries(COMPOSITION)) for (let i = (left[rank] || 0); i < count; i++) ranks.push(rank);
    } else if (flags.has(seat) && !left['9'] && lost > 0) {
      ranks.push('9'); // the flag shows when the commander falls
    }
    out[seat] = { left: n, lost, ranks: RANK_ORDER.filter(r => ranks.includes(r)).flatMap(r => ranks.filter(x => x === r)) };
  }
  return out;
}
const RANK_ORDER = ['9', '8', '7', '6', '5', '4', '3', '2', '1', 'B', 'M', 'F'];

/**
 * A draw offered by another seat that we may answer: the offering seat, or null. Shown as a
 * prompt over the board (同意 / 拒绝) while we hold a live seat of the battle.
 */
export function drawPrompt(s) {
  const offer = s.phase === 'battle' && s.view && s.view.draw_offer;
  if (!offer || controls(s, offer)) return null;
  const elim = eliminated(s);
  return mySeats(s).some(seat => !elim.has(seat)) ? offer : null;
}

/**
 * Who `seat` is for this viewer, for the words of a line: {you: true, dual} for a seat we control
 * (dual: we control two, so the seat is named too), else {you: false}. Every line of the page
 * (log, chat, status, plates) tells our own seat the same way.
 */
export function whoIs(s, seat) {
  return controls(s, seat) ? { you: true, dual: mySeats(s).length > 1 } : { you: false };
}

/** Which of the recent moves (state.recent) should be numbered on the board. */
export const recentMoves = (s) => (s.phase === 'battle' || s.phase === 'finished' ? s.recent : []);

/** The fields of a `resync` from the last version we applied. */
export function resyncFields(s) {
  return s.v != null ? { room: s.roomId, v: s.v } : { room: s.roomId };
}

/**
 * A finished ranked game's results as the server sent them (`results` of the update that ended
 * it, or of a snapshot of it): kept, with ours — the first of our seats that has one; both seats
 * of one account (dual control) have its one result. No `results`: nothing changes.
 */
function withResults(s, results) {
  if (!results) return s;
  const mine = mySeats(s).find(seat => results[seat]);
  // a rated (hf_ranked) result carries the new rating instead of points
  const rated = mine && results[mine].rating
    ? { rating: results[mine].rating, ratingChange: results[mine].rating_change ?? null } : {};
  return { ...s, results, points: mine ? { points: results[mine].points, outcome: results[mine].outcome || null, ...rated } : null };
}

/** Whether any of `keys` of the state differs from `prev` (by identity; always for no `prev`). */
export function changed(prev, next, keys) {
  return !prev || keys.some(k => prev[k] !== next[k]);
}

/**
 * The view after a `delta` (protocol 2, docs/protocol.md §5): the changed stations (a piece code,
 * or null where the station emptied) and the other fields that changed.
 */
export function applyDelta(view, delta) {
  const { pieces: changes = {}, ...fields } = delta;
  const pieces = { ...(view.pieces || {}) };
  for (const [stn, code] of Object.entries(changes)) {
    if (code == null) delete pieces[stn];
    else pieces[stn] = code;
  }
  return { ...view, ...fields, pieces };
}

/** An update that applies to the version we hold (its moves can be animated, then reduced). */
export function updateFits(s, msg) {
  return forUs(s, msg) && (s.v == null || msg.from_v === s.v);
}

// ---------- the reducer

/** The state with no effects: the same object when there is nothing to clear. */
function quiet(s) {
  return s.effects.length ? { ...s, effects: [] } : s;
}

const forUs = (s, msg) => !!msg.room && !!s.roomId && msg.room === s.roomId;

const withSeat = (list, seat) => (list.includes(seat) ? list : [...list, seat]);

const send = (msg, fields) => ({ type: 'send', msg, fields });

/**
 * What a viewer knows of the piece `code` (from its view before the move): {seat, rank, mine}.
 * The rank stays '?' unless the view showed it — nothing more than the outcome reveals.
 */
function known(s, code, seat) {
  return { seat: (code && code[0]) || seat, rank: code && code[1] !== '?' ? code.slice(1) : null, mine: controls(s, (code && code[0]) || seat) };
}

/**
 * The moves of an update, numbered, with what we knew of the pieces involved, and the marks
 * carried along (a marked piece that moves keeps its mark; a removed one loses it).
 */
function followMoves(s, events) {
  const pieces = { ...((s.view && s.view.pieces) || {}) };
  let recent = s.recent, moveNo = s.moveNo, marks = s.marks, marksChanged = false;
  const entries = [];
  for (const ev of events) {
    // Moves are numbered by the battle's step (moves and skips, as the step counter counts them);
    // a `turn` event says the step count outright.
    if (ev.type === 'turn' && Number.isInteger(ev.steps)) moveNo = ev.steps;
    if (ev.type === 'skipped') moveNo += 1;
    if (ev.type !== 'moved') continue;
    moveNo += 1;
    const a = pieces[ev.from] || ev.seat + '?';
    const d = ev.combat ? pieces[ev.to] || null : null;
    const entry = {
      n: 0, no: moveNo, seat: ev.seat, from: ev.from, to: ev.to, path: ev.path || [ev.from, ev.to], combat: ev.combat || null,
      attacker: known(s, a, ev.seat), defender: ev.combat ? known(s, d, d ? d[0] : null) : null,
    };
    entries.push(entry);
    // Our own move starts a new round of marks on the board.
    recent = controls(s, ev.seat) ? [] : recent.length >= 8 ? recent.slice(1) : recent;
    recent = [...recent, entry].map((e, i) => (e.n === i + 1 ? e : { ...e, n: i + 1 }));
    delete pieces[ev.from];
    if (!ev.combat || ev.combat === 'attacker_won') pieces[ev.to] = a;
    else if (ev.combat === 'both_removed') delete pieces[ev.to];
    const m = { ...marks };
    const moving = m[ev.from];
    delete m[ev.from];
    if (ev.combat === 'attacker_won' || ev.combat === 'both_removed') delete m[ev.to];
    if (moving && (!ev.combat || ev.combat === 'attacker_won')) m[ev.to] = moving;
    if (Object.keys(m).length !== Object.keys(marks).length || moving || marks[ev.to]) { marks = m; marksChanged = true; }
  }
  return { recent, moveNo, marks, marksChanged, entries };
}

export function reduce(state, msg) {
  const s = quiet(state);
  const fn = HANDLERS[msg.type];
  return fn ? fn(s, msg) : s;
}

const HANDLERS = {
  // ----- server messages

  room(s0, msg) {
    const s = !s0.roomId && s0.joining ? { ...s0, roomId: msg.room } : s0;
    if (!forUs(s, msg)) return s0;
    let phase = s.phase;
    // Later phases come with the versioned updates (with their view); the room message only
    // tells us that a game started.
    if (msg.phase && (!phase || phase === 'waiting') && PHASES.indexOf(msg.phase) >= PHASES.indexOf(phase)) phase = msg.phase;
    const presence = { ...s.presence };
    for (const [seat, info] of Object.entries(msg.seats || {})) if (info) presence[seat] = info.online;
    // a game's seats also change by the room (托管 marks): keep the snapshot's seats current
    const seats = s.seats && msg.phase !== 'waiting' && msg.seats ? msg.seats : s.seats;
    const effects = [];
    // A game just started under our eyes: ask for a snapshot (deployment, clock, version).
    if (s.phase === 'waiting' && phase !== 'waiting') effects.push(send('resync', { room: s.roomId }));
    return {
      ...s, room: msg, you: msg.you || s.you, phase, game: msg.game != null ? msg.game : s.game, presence, seats, effects,
    };
  },

  // the spectator count, sent at most every 2 s when it changes (not per join/leave)
  spectators(s, msg) {
    if (!forUs(s, msg) || !s.room) return s;
    return { ...s, room: { ...s.room, spectators: msg.count } };
  },

  snapshot(s, msg) {
    if (!forUs(s, msg)) return s;
    const presence = { ...s.presence };
    const escaped = { ...s.escaped };
    for (const [seat, info] of Object.entries(msg.seats || {})) {
      if (info) { presence[seat] = info.online; escaped[seat] = info.escaped; }
    }
    const lastMove = (msg.last_events || []).filter(e => e.type === 'moved').pop();
    const sameGame = s.game === msg.game;
    // The game's past events (a reload, a late spectator, a new game): the log rebuilt from them.
    const log = msg.past_events ? logFromPast({ ...s, you: msg.you || s.you }, msg.past_events, msg.past_seen) : sameGame ? s.log : [];
    return withResults({
      ...s,
      game: msg.game, v: msg.v, phase: msg.phase, seats: msg.seats, you: msg.you || s.you, view: msg.view,
      clock: msg.clock, legal: msg.legal_moves || {}, confirmed: msg.confirmed || [],
      deployments: { ...(msg.deployments || {}) },
      presence, escaped, log,
      lastPath: lastMove ? lastMove.path : s.lastPath,
      selected: null,
      moveNo: msg.view && Number.isInteger(msg.view.steps) ? msg.view.steps : sameGame ? s.moveNo : 0,
      recent: s.game === msg.game ? s.recent : [],
      marks: s.game === msg.game ? s.marks : {},
      results: sameGame ? s.results : null,
      points: sameGame ? s.points : null,
      effects: [],
    }, msg.results);
  },

  deployment(s, msg) {
    if (!forUs(s, msg)) return s;
    return {
      ...s,
      deployments: { ...s.deployments, [msg.seat]: { seat: msg.seat, pieces: msg.pieces } },
      confirmed: msg.confirmed ? withSeat(s.confirmed, msg.seat) : s.confirmed,
    };
  },

  update(s, msg) {
    if (!forUs(s, msg)) return s;
    if (s.v != null && msg.from_v !== s.v) {
      if (msg.v <= s.v) return s; // already have it
      return { ...s, effects: [send('resync', resyncFields(s))] };
    }
    // a delta needs the view it was made from
    if (msg.delta && (!s.view || s.v == null)) return { ...s, effects: [send('resync', { room: s.roomId })] };
    let { phase, confirmed, escaped, lastPath } = s;
    const offers = [];
    const followed = followMoves(s, msg.events || []);
    const log = [...s.log];
    const chat = [...s.chat];
    const effects = [];
    let k = 0;
    for (const ev0 of msg.events || []) {
      let ev = ev0;
      if (ev.type === 'moved') {
        // The log keeps what we knew of the pieces at the time.
        const e = followed.entries[k++];
        ev = { ...ev, no: e.no, attacker: e.attacker, defender: e.defender };
        lastPath = e.path;
        effects.push({ type: 'sound', name: ev.combat ? 'combat' : 'move' });
      } else if (ev.type === 'deploy_confirmed') confirmed = withSeat(confirmed, ev.seat);
      else if (ev.type === 'battle_started') {
        phase = 'battle';
        effects.push({ type: 'announce', key: 'battle_begins' });
      } else if (ev.type === 'escaped') escaped = { ...escaped, [ev.seat]: true };
      else if (ev.type === 'draw_offered') offers.push(ev.seat);
      if (LOGGED.has(ev.type)) log.push(ev);
      if (ANNOUNCED[ev.type]) chat.push({ sys: ANNOUNCED[ev.type], seat: ev.seat });
    }
    const view = msg.delta ? applyDelta(s.view, msg.delta) : msg.view !== undefined ? msg.view : s.view;
    const fullOrDelta = msg.view || msg.delta;
    if (msg.clock && msg.clock.phase) phase = msg.clock.phase;
    if (view && view.status && view.status.state !== 'ongoing') phase = 'finished';
    const next = {
      ...s,
      v: msg.v, view, clock: msg.clock || s.clock, legal: msg.legal_moves || {}, phase,
      confirmed, escaped, lastPath, log, chat, selected: null,
      recent: followed.recent, moveNo: fullOrDelta && Number.isInteger(view.steps) ? view.steps : followed.moveNo, marks: followed.marks,
      markMenu: followed.marksChanged ? null : s.markMenu,
      offeredAt: offers.length ? { ...s.offeredAt, ...Object.fromEntries(offers.map(o => [o, (view && view.steps) || 0])) } : s.offeredAt,
    };
    if (followed.marksChanged) effects.push({ type: 'save_marks' });
    if (myTurn(next) && !myTurn(s)) effects.push({ type: 'your_turn' });
    return withResults({ ...next, effects }, msg.results);
  },

  presence(s, msg) {
    if (!forUs(s, msg)) return s;
    return { ...s, presence: { ...s.presence, ...(msg.seats || {}) } };
  },

  chat(s, msg) {
    if (!forUs(s, msg)) return s;
    return { ...s, chat: [...s.chat, { from: msg.from, seat: msg.seat || null, team: !!msg.team, text: msg.text }] };
  },

  kicked(s, msg) {
    if (!forUs(s, msg)) return s;
    return { ...s, effects: [{ type: 'toast', key: 'kicked', kind: 'error' }, { type: 'navigate', to: '/lobby' }] };
  },

  room_closed(s, msg) {
    if (!forUs(s, msg)) return s;
    return { ...s, effects: [{ type: 'toast', key: 'room_closed', kind: '' }, { type: 'navigate', to: '/lobby' }] };
  },

  // ----- local actions

  /** join_room is on its way (true) or answered (false). */
  'ui/joining'(s, { joining }) {
    return { ...s, joining: !!joining };
  },

  /** join_room acknowledged, with the room id (a join by invite or game learns it here). */
  'ui/joined'(s, { room }) {
    if (!room || room === s.roomId) return s;
    return { ...s, roomId: room, effects: [{ type: 'replace_url', hash: '#/room/' + room }] };
  },

  /** A click on the board (`station` null: outside, or Escape). */
  'ui/click'(s, { station }) {
    if (!station) return { ...s, selected: null, markMenu: null };
    if (s.phase === 'deploying') return deployClick(s, station);
    const target = s.selected && (s.legal[s.selected] || []).includes(station);
    if (s.phase === 'battle' && !target && markable(s, station)) return { ...s, selected: null, markMenu: station };
    if (s.phase === 'battle' && myTurn(s)) return battleClick({ ...s, markMenu: null }, station);
    return s.markMenu ? { ...s, markMenu: null } : s;
  },

  /** Started animating an update: nothing stays selected. */
  'ui/animating'(s) {
    return { ...s, selected: null };
  },

  'ui/chat_tab'(s, { tab }) {
    return { ...s, chatTab: tab === 'team' ? 'team' : 'room' };
  },

  'ui/swap_done'(s) {
    return { ...s, swapError: null };
  },

  /** A refused swap: its reason shows in the deployment panel, next to 确认布阵 (no toast over the board). */
  'ui/swap_failed'(s, { error }) {
    return { ...s, swapError: error };
  },

  /** A move was refused: its pieces become selectable again unless the game moved on. */
  'ui/move_failed'(s, { error, legal, v }) {
    const effects = [{ type: 'toast', error, kind: 'error' }];
    return s.v === v ? { ...s, legal, effects } : { ...s, effects };
  },

  'ui/action_failed'(s, { error }) {
    return { ...s, effects: [{ type: 'toast', error, kind: 'error' }] };
  },

  /** Open (station) or close (null) the mark menu of an enemy piece. */
  'ui/mark_menu'(s, { station }) {
    if (!station) return s.markMenu ? { ...s, markMenu: null } : s;
    return markable(s, station) ? { ...s, markMenu: station, selected: null } : s;
  },

  /** Mark an enemy piece as what we believe it is (`mark` null: remove the mark). */
  'ui/mark'(s, { station, mark }) {
    if (!markable(s, station)) return { ...s, markMenu: null };
    const marks = { ...s.marks };
    if (mark && MARKS.includes(mark)) marks[station] = mark; else delete marks[station];
    return { ...s, marks, markMenu: null, effects: [{ type: 'save_marks' }] };
  },

  /** Marks kept in the browser for this game: only those still on a hidden enemy piece. */
  'ui/marks_loaded'(s, { game, marks }) {
    if (game !== s.game || !marks) return s;
    const kept = {};
    for (const [stn, m] of Object.entries(marks)) if (MARKS.includes(m) && markable(s, stn)) kept[stn] = m;
    return { ...s, marks: kept };
  },
};

/** What a mark can say: a rank, bomb, mine, flag, or a question mark. */
export const MARKS = ['9', '8', '7', '6', '5', '4', '3', '2', '1', 'B', 'M', 'F', '?'];

/** A piece we may mark: an enemy's (not a teammate's), hidden from us, during the battle. */
export function markable(s, station) {
  if (s.phase !== 'battle' || !s.view || !s.view.pieces) return false;
  const code = s.view.pieces[station];
  if (!code || code[1] !== '?' || controls(s, code[0])) return false;
  const team = myTeam(s);
  return !team || TEAM[code[0]] !== team; // Hidden Front: no team, every other piece is the enemy's
}

/** Deployment: the first click picks one of our pieces, a second one of the same seat swaps. */
function deployClick(s, stn) {
  const owner = stationInfo(stn)?.seat;
  if (!owner || !controls(s, owner) || s.confirmed.includes(owner) || !s.deployments[owner]) return { ...s, selected: null };
  if (!s.selected) return { ...s, selected: stn };
  if (s.selected === stn) return { ...s, selected: null };
  const a = s.selected;
  if (stationInfo(a)?.seat !== owner) return { ...s, selected: stn };
  return { ...s, selected: null, effects: [{ type: 'swap', seat: owner, a, b: stn }] };
}

/** Battle, our turn: pick a piece with legal moves, then one of its destinations. */
function battleClick(s, stn) {
  if (s.selected && (s.legal[s.selected] || []).includes(stn)) {
    // One move per turn: nothing is selectable until the next update (or a refusal).
    return { ...s, selected: null, legal: {}, effects: [{ type: 'move', from: s.selected, to: stn, legal: s.legal, v: s.v }] };
  }
  return { ...s, selected: s.legal[stn] ? (s.selected === stn ? null : stn) : null };
}
