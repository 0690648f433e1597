// The two boards as data (no DOM): stations, links, straight rail lines, seats, and where each
// station is drawn for a viewer at the bottom. Pure, so node tests and the replay engine use it.
//
// - four_player (rules.md §2): the cross, 129 stations, 288 links (arcs included); global grid
//   x to the east, y to the south, 0..16.
// - hidden_front (hidden-front.md §2): 5 × 12, 60 stations, 133 links; notation "A1"…"E12",
//   columns A–E left → right as South sees them, rows 1 (North's back row) … 12 (South's).

export const VARIANTS = ['four_player', 'hidden_front'];
export const SEATS = ['N', 'E', 'S', 'W'];
export const HF_SEATS = ['S', 'N'];
export const TEAM = { N: 'NS', S: 'NS', E: 'EW', W: 'EW' };
export const COLS = 'abcde';
export const HF_COLS = 'ABCDE';

function makeLinks() {
  const list = [];
  const seen = new Set();
  const add = (a, b, rail, arc = false) => {
    const key = a < b ? a + '-' + b : b + '-' + a;
    if (seen.has(key)) return;
    seen.add(key);
    list.push({ a, b, rail, arc });
  };
  return { list, add };
}

// ---------- the four-player cross

const CAMPS = new Set(['b2', 'd2', 'c3', 'b4', 'd4']);
const HQS = new Set(['b6', 'd6']);

function regionXY(seat, c, r) {
  switch (seat) {
    case 'S': return [5 + c, 10 + r];
    case 'N': return [11 - c, 6 - r];
    case 'W': return [6 - r, 5 + c];
    case 'E': return [10 + r, 11 - c];
  }
}

function isRegionRail(c, r) {
  return r === 1 || r === 5 || ((c === 1 || c === 5) && r <= 5);
}

/** name -> {name, seat, col, row, x, y, local, kind, rail} */
export const STATIONS = new Map();
for (const seat of SEATS) {
  for (let r = 1; r <= 6; r++) {
    for (let c = 1; c <= 5; c++) {
      const local = COLS[c - 1] + r;
      const [x, y] = regionXY(seat, c, r);
      STATIONS.set(seat + local, {
        name: seat + local, seat, col: c, row: r, x, y, local,
        kind: CAMPS.has(local) ? 'camp' : HQS.has(local) ? 'hq' : 'ordinary',
        rail: isRegionRail(c, r),
      });
    }
  }
}
for (let r = 1; r <= 3; r++) {
  for (let c = 1; c <= 3; c++) {
    const name = 'C' + 'abc'[c - 1] + r;
    STATIONS.set(name, { name, seat: null, col: c, row: r, x: 4 + 2 * c, y: 12 - 2 * r, kind: 'ordinary', rail: true });
  }
}
const byXY = new Map();
for (const s of STATIONS.values()) byXY.set(s.x + ',' + s.y, s.name);
export function stationAt(x, y) { return byXY.get(x + ',' + y); }

/** [{a, b, rail, arc}] — 288 links. */
export const LINKS = (() => {
  const { list, add } = makeLinks();
  for (const seat of SEATS) {
    const n = (c, r) => seat + COLS[c - 1] + r;
    for (let r = 1; r <= 6; r++) {
      for (let c = 1; c <= 5; c++) {
        if (c < 5) add(n(c, r), n(c + 1, r), (r === 1 || r === 5));
        if (r < 6) add(n(c, r), n(c, r + 1), (c === 1 || c === 5) && r + 1 <= 5);
        if (CAMPS.has(COLS[c - 1] + r)) {
          for (const [dc, dr] of [[-1, -1], [1, -1], [-1, 1], [1, 1]]) add(n(c, r), n(c + dc, r + dr), false);
        }
      }
    }
    for (const c of [1, 3, 5]) {
      const s = STATIONS.get(n(c, 1));
      const cx = seat === 'W' ? 6 : seat === 'E' ? 10 : s.x;
      const cy = seat === 'N' ? 6 : seat === 'S' ? 10 : s.y;
      add(s.name, stationAt(cx, cy), true);
    }
  }
  for (let r = 1; r <= 3; r++) {
    for (let c = 1; c <= 3; c++) {
      const name = 'C' + 'abc'[c - 1] + r;
      if (c < 3) add(name, 'C' + 'abc'[c] + r, true);
      if (r < 3) add(name, 'C' + 'abc'[c - 1] + (r + 1), true);
    }
  }
  // Arcs: each seat's e1 to its right-hand neighbour's a1.
  add('Se1', 'Ea1', true, true);
  add('Ee1', 'Na1', true, true);
  add('Ne1', 'Wa1', true, true);
  add('We1', 'Sa1', true, true);
  return list;
})();

/** Quarter turns (clockwise on screen) that bring `seat` to the bottom. */
export function quarterTurns(seat) {
  return { S: 0, W: 3, N: 2, E: 1 }[seat] ?? 0;
}

/** Which screen side a seat ends up on: 'bottom' | 'left' | 'top' | 'right'. */
export function seatSide(seat, bottomSeat) {
  if (seat === bottomSeat) return 'bottom';
  if (!SEATS.includes(bottomSeat)) return 'top';
  const idx = (SEATS.indexOf(seat) - SEATS.indexOf(bottomSeat) + 4) % 4;
  return ['bottom', 'left', 'top', 'right'][idx];
}

// ---------- Hidden Front's 5 × 12 board

const HF_CAMPS = new Set(['B3', 'D3', 'C4', 'B5', 'D5', 'B8', 'D8', 'C9', 'B10', 'D10']);
const HF_HQS = new Set(['B1', 'D1', 'B12', 'D12']);
const hfName = (c, r) => HF_COLS[c] + r;
const hfRailRow = (r) => r === 2 || r === 6 || r === 7 || r === 11;
const hfRailCol = (c, r) => (c === 0 || c === 4) && ((r >= 2 && r <= 6) || (r >= 7 && r <= 11));

/** The seat owning row `r` of Hidden Front's board. */
export const hfSeatOfRow = (r) => (r <= 6 ? 'N' : 'S');

/** name -> {name, seat, c (0..4), r (1..12), local, kind, rail} */
export const HF_STATIONS = new Map();
for (let r = 1; r <= 12; r++) {
  for (let c = 0; c < 5; c++) {
    const name = hfName(c, r);
    const seat = hfSeatOfRow(r);
    // The seat's own names (rules.md §2's a1…e6, row 1 at the front): one formation fits both games.
    const local = seat === 'S' ? COLS[c] + (r - 6) : COLS[4 - c] + (7 - r);
    HF_STATIONS.set(name, {
      name, seat, c, r, local,
      kind: HF_CAMPS.has(name) ? 'camp' : HF_HQS.has(name) ? 'hq' : 'ordinary',
      rail: hfRailRow(r) || hfRailCol(c, r),
    });
  }
}

/** [{a, b, rail, arc}] — 133 links: 98 road + 35 rail. */
export const HF_LINKS = (() => {
  const { list, add } = makeLinks();
  for (let r = 1; r <= 12; r++) {
    for (let c = 0; c < 5; c++) {
      if (c < 4) add(hfName(c, r), hfName(c + 1, r), hfRailRow(r));
      // Down a column inside a half; across the front only at A, C and E (B and D: mountains).
      if (r !== 6 && r < 12) add(hfName(c, r), hfName(c, r + 1), hfRailCol(c, r) && hfRailCol(c, r + 1));
      if (r === 6 && c % 2 === 0) add(hfName(c, 6), hfName(c, 7), true);
      if (HF_CAMPS.has(hfName(c, r))) {
        for (const [dc, dr] of [[-1, -1], [1, -1], [-1, 1], [1, 1]]) add(hfName(c, r), hfName(c + dc, r + dr), false);
      }
    }
  }
  return list;
})();

/** The seven straight rail lines, end to end. */
export const HF_LINES = [
  ...[2, 6, 7, 11].map(r => [0, 1, 2, 3, 4].map(c => hfName(c, r))),
  ...[0, 4].map(c => Array.from({ length: 10 }, (_, i) => hfName(c, i + 2))),
  ['C6', 'C7'],
];

// ---------- both boards behind one interface

/**
 * A board's data: {variant, seats, stations, links, regions, centre, width, height, place(name,
 * bottom) → [gx, gy] grid position on screen for a viewer with `bottom` at the bottom, sideOf}.
 */
const FOUR = {
  variant: 'four_player', seats: SEATS, stations: STATIONS, links: LINKS,
  /** Screen grid of the viewer: 16 × 16 units, a gap around the centre. */
  place(name, bottom) {
    const s = STATIONS.get(name);
    let [x, y] = [s.x, s.y];
    for (let i = 0; i < quarterTurns(bottom); i++) [x, y] = [16 - y, x];
    return [x, y];
  },
  sideOf: seatSide,
};

const HIDDEN_FRONT = {
  variant: 'hidden_front', seats: HF_SEATS, stations: HF_STATIONS, links: HF_LINKS, lines: HF_LINES,
  /** Column c at x = c, row r at y = r - 1; North at the bottom sees it turned 180°. */
  place(name, bottom) {
    const s = HF_STATIONS.get(name);
    return bottom === 'N' ? [4 - s.c, 12 - s.r] : [s.c, s.r - 1];
  },
  sideOf: (seat, bottom) => (seat === bottom ? 'bottom' : 'top'),
};

export const BOARDS = { four_player: FOUR, hidden_front: HIDDEN_FRONT };

/** The board of a variant (the four-player cross for anything unknown). */
export function boardOf(variant) {
  return BOARDS[variant] || FOUR;
}

/** A station of either board (their names never collide: "Sa1"/"Ca1" vs "A1"). */
export function stationInfo(name) {
  return STATIONS.get(name) || HF_STATIONS.get(name) || null;
}

/** The seat's own name of a station ("a1"…"e6", as saved formations use). */
export function localName(name) {
  const s = stationInfo(name);
  return s ? s.local || null : null;
}

/**
 * A deployment (the board's stations: "Sa1" on the cross, "C9" on Hidden Front's board) as a
 * saved formation (the seat's own names a1..e6, front row 1).
 */
export function toFormation(deployment) {
  const pieces = deployment && (deployment.pieces || deployment);
  const f = {};
  for (const [stn, rank] of Object.entries(pieces || {})) f[localName(stn) || stn.slice(1)] = rank;
  return f;
}

/** The formations of one game from a list (formations without a game are four-player ones). */
export function formationsOf(list, variant = 'four_player') {
  return (list || []).filter(f => (f.variant || 'four_player') === variant);
}
