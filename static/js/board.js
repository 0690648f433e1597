// The cross-shaped board (rules.md §2): station geometry, links, and the SVG renderer.
// Global grid: x to the east, y to the south, 0..16. The renderer rotates the board so that
// the viewer's seat is at the bottom.

export const SEATS = ['N', 'E', 'S', 'W'];
export const TEAM = { N: 'NS', S: 'NS', E: 'EW', W: 'EW' };
export const COLS = 'abcde';

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

/** name -> {name, seat, col, row, x, y, kind, rail} */
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
export const LINKS = [];
const linkSeen = new Set();
function link(a, b, rail, arc = false) {
  const key = a < b ? a + '-' + b : b + '-' + a;
  if (linkSeen.has(key)) return;
  linkSeen.add(key);
  LINKS.push({ a, b, rail, arc });
}
for (const seat of SEATS) {
  const n = (c, r) => seat + COLS[c - 1] + r;
  for (let r = 1; r <= 6; r++) {
    for (let c = 1; c <= 5; c++) {
      if (c < 5) link(n(c, r), n(c + 1, r), (r === 1 || r === 5));
      if (r < 6) link(n(c, r), n(c, r + 1), (c === 1 || c === 5) && r + 1 <= 5);
      if (CAMPS.has(COLS[c - 1] + r)) {
        for (const [dc, dr] of [[-1, -1], [1, -1], [-1, 1], [1, 1]]) link(n(c, r), n(c + dc, r + dr), false);
      }
    }
  }
  for (const c of [1, 3, 5]) {
    const s = STATIONS.get(n(c, 1));
    const cx = seat === 'W' ? 6 : seat === 'E' ? 10 : s.x;
    const cy = seat === 'N' ? 6 : seat === 'S' ? 10 : s.y;
    link(s.name, stationAt(cx, cy), true);
  }
}
for (let r = 1; r <= 3; r++) {
  for (let c = 1; c <= 3; c++) {
    const name = 'C' + 'abc'[c - 1] + r;
    if (c < 3) link(name, 'C' + 'abc'[c] + r, true);
    if (r < 3) link(name, 'C' + 'abc'[c - 1] + (r + 1), true);
  }
}
// Arcs: each seat's e1 to its right-hand neighbour's a1.
link('Se1', 'Ea1', true, true);
link('Ee1', 'Na1', true, true);
link('Ne1', 'Wa1', true, true);
link('We1', 'Sa1', true, true);

export const SEAT_COLOURS = { N: '#2f8f55', E: '#2e66c9', S: '#cf3b2b', W: '#b07d12' };
export const SEAT_LIGHT = { N: '#e3f3e8', E: '#e2ebfa', S: '#fbe6e2', W: '#f7eed6' };

export const RANK_CODES = ['9', '8', '7', '6', '5', '4', '3', '2', '1', 'B', 'M', 'F'];

/** Quarter turns (clockwise on screen) that bring `seat` to the bottom. */
export function quarterTurns(seat) {
  return { S: 0, W: 3, N: 2, E: 1 }[seat] ?? 0;
}

function rotate([x, y], q) {
  for (let i = 0; i < q; i++) [x, y] = [16 - y, x];
  return [x, y];
}

/** Which screen side a seat ends up on: 'bottom' | 'left' | 'top' | 'right'. */
export function seatSide(seat, bottomSeat) {
  const idx = (SEATS.indexOf(seat) - SEATS.indexOf(bottomSeat) + 4) % 4;
  return ['bottom', 'left', 'top', 'right'][idx];
}

const U = 40; // grid unit in SVG user units
const GAP = 0.1; // extra spacing between the regions and the centre, in units
const MARGIN = 0.5;
// Pieces nearly fill the space between neighbouring stations: as large as the board allows.
const PW = U * 0.95, PH = U * 0.62;

function coord(v) {
  let p = v;
  if (v >= 11) p += GAP;
  if (v <= 5) p -= GAP;
  return (p + GAP + MARGIN) * U;
}
const SIZE = (16 + 2 * GAP + 2 * MARGIN) * U;

const SVGNS = 'http://www.w3.org/2000/svg';
function el(tag, attrs = {}, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** Seats whose moves are drawn and named with their colour. */
export const MOVE_COLOURS = SEAT_COLOURS;

const LINK_BY_PAIR = new Map();
for (const l of LINKS) { LINK_BY_PAIR.set(l.a + '-' + l.b, l); LINK_BY_PAIR.set(l.b + '-' + l.a, l); }

/**
 * Draw the board into `container`. Returns a controller:
 *   setView(bottomSeat), setPieces({station: "S9"|"S?"}), setSelectable(names), setSelected(name),
 *   setTargets(names), setLastMove(path), animateMove(path, pieceCode) -> Promise, flash(name, outcome),
 *   setEliminated(seats), setFlags(stationNames), onClick(fn(name)), setLabels({seat: text})
 */
export function createBoard(container, { rankLabel, pieceTitle, stationLabel } = {}) {
  const svg = el('svg', { viewBox: `0 0 ${SIZE} ${SIZE}`, class: 'board', role: 'grid', 'aria-label': 'board' });
  container.appendChild(svg);
  const state = {
    bottom: 'S', pieces: {}, selectable: new Set(), selected: null, targets: new Set(), last: [],
    eliminated: new Set(), flags: new Set(), onClick: () => {}, focus: null,
    recent: [], marks: {}, highlight: null, onMark: () => {},
  };
  const layers = {};
  for (const name of ['bg', 'plates', 'links', 'stations', 'last', 'pieces', 'targets', 'anim', 'fx']) layers[name] = el('g', { class: 'layer-' + name }, svg);
  state.plates = {};

  function pos(name) {
    const s = STATIONS.get(name);
    const [x, y] = rotate([s.x, s.y], quarterTurns(state.bottom));
    return [coord(x), coord(y)];
  }

  /** The path command from station `a` (already reached) to its neighbour `b`: a line or the arc. */
  function segment(a, b) {
    const [x1, y1] = pos(a), [x2, y2] = pos(b);
    const l = LINK_BY_PAIR.get(a + '-' + b);
    if (!l || !l.arc) return `L${x2},${y2}`;
    // Quarter circle around the empty corner between the two regions.
    const sa = STATIONS.get(a), sb = STATIONS.get(b);
    // Corner of the empty square: the point with the "outer" coordinate of each end.
    const gx = Math.abs(sa.x - 8) > Math.abs(sb.x - 8) ? sa.x : sb.x;
    const gy = Math.abs(sa.y - 8) > Math.abs(sb.y - 8) ? sa.y : sb.y;
    const [cx, cy] = rotate([gx, gy], quarterTurns(state.bottom)).map(coord);
    const r = Math.hypot(x1 - cx, y1 - cy);
    // Sweep so that the arc bulges towards the centre of the board.
    const cross = (x1 - cx) * (y2 - cy) - (y1 - cy) * (x2 - cx);
    return `A${r},${r} 0 0 ${cross > 0 ? 1 : 0} ${x2},${y2}`;
  }

  /** A path along the track through the stations `names` (arcs followed). */
  function trackD(names) {
    return names.map((n, i) => (i ? segment(names[i - 1], n) : 'M' + pos(n).join(','))).join(' ');
  }

  function drawStatic() {
    for (const l of Object.values(layers)) if (l !== layers.pieces) l.replaceChildren();
    // Region backgrounds, tinted by seat.
    for (const seat of SEATS) {
      const pts = [];
      for (const n of [seat + 'a1', seat + 'e1', seat + 'e6', seat + 'a6']) pts.push(pos(n));
      const xs = pts.map(p => p[0]), ys = pts.map(p => p[1]);
      const pad = U * 0.55;
      el('rect', {
        x: Math.min(...xs) - pad, y: Math.min(...ys) - pad,
        width: Math.max(...xs) - Math.min(...xs) + 2 * pad, height: Math.max(...ys) - Math.min(...ys) + 2 * pad,
        rx: U * 0.25, class: 'region' + (state.eliminated.has(seat) ? ' eliminated' : ''),
        fill: SEAT_LIGHT[seat], stroke: SEAT_COLOURS[seat], 'data-seat': seat,
      }, layers.bg);
    }
    {
      const a = pos('Ca1'), c = pos('Cc3');
      const pad = U * 0.5;
      el('rect', {
        x: Math.min(a[0], c[0]) - pad, y: Math.min(a[1], c[1]) - pad,
        width: Math.abs(a[0] - c[0]) + 2 * pad, height: Math.abs(a[1] - c[1]) + 2 * pad,
        rx: U * 0.25, class: 'centre',
      }, layers.bg);
    }
    // Links.
    for (const l of LINKS) {
      const d = 'M' + pos(l.a).join(',') + ' ' + segment(l.a, l.b);
      if (l.rail) {
        el('path', { d, class: 'rail-base' }, layers.links);
        el('path', { d, class: 'rail-ties' }, layers.links);
      } else {
        el('path', { d, class: 'road' }, layers.links);
      }
    }
    // Stations.
    for (const s of STATIONS.values()) {
      const [x, y] = pos(s.name);
      const g = el('g', { class: 'station', 'data-station': s.name }, layers.stations);
      if (s.kind === 'camp') {
        el('circle', { cx: x, cy: y, r: U * 0.36, class: 'camp' }, g);
      } else if (s.kind === 'hq') {
        el('rect', { x: x - U * 0.44, y: y - U * 0.3, width: U * 0.88, height: U * 0.6, rx: U * 0.3, class: 'hq' }, g);
      } else {
        el('rect', { x: x - U * 0.36, y: y - U * 0.22, width: U * 0.72, height: U * 0.44, rx: U * 0.06, class: 'post' + (s.seat ? '' : ' centre-post') }, g);
      }
      if (stationLabel && s.kind !== 'ordinary') {
        const t = el('text', { x, y: y + U * 0.07, class: 'station-label' }, g);
        t.textContent = stationLabel(s.kind);
      }
    }
    drawDynamic();
  }

  function pieceShape(parent, x, y, code, opts = {}) {
    const seat = code[0], rank = code.slice(1);
    const hidden = rank === '?';
    const g = el('g', { class: 'piece' + (hidden ? ' back' : ' face') + (opts.cls ? ' ' + opts.cls : ''), transform: `translate(${x},${y})` }, parent);
    const w = PW, h = PH;
    el('rect', {
      x: -w / 2, y: -h / 2, width: w, height: h, rx: U * 0.08,
      fill: hidden ? SEAT_COLOURS[seat] : '#fffdf6', stroke: SEAT_COLOURS[seat], 'stroke-width': hidden ? 1 : 2.2,
      class: 'piece-body',
    }, g);
    if (hidden) {
      el('rect', { x: -w / 2 + 3, y: -h / 2 + 3, width: w - 6, height: h - 6, rx: U * 0.05, class: 'piece-back-inner' }, g);
    } else {
      const label = rankLabel ? rankLabel(rank) : rank;
      const latin = /^[\x00-\x7f]+$/.test(label);
      const t = el('text', { x: 0, y: U * (latin ? 0.07 : 0.1), fill: SEAT_COLOURS[seat], class: 'piece-text' + (rank === 'F' ? ' flag' : '') + (latin ? ' latin' : '') }, g);
      t.textContent = label;
    }
    if (hidden && opts.mark) {
      const m = el('text', { x: 0, y: U * 0.1, class: 'piece-text mark' }, g);
      m.textContent = opts.mark;
    }
    if (opts.title) { const ti = el('title', {}, g); ti.textContent = opts.title; }
    return g;
  }

  function drawDynamic() {
    layers.pieces.replaceChildren();
    layers.targets.replaceChildren();
    layers.last.replaceChildren();
    const recent = state.recent.filter(m => m.path && m.path.length > 1);
    if (!recent.length && state.last.length > 1) recent.push({ path: state.last, n: null, seat: null });
    const hp = state.highlightPath;
    if (hp && hp.path && hp.path.length > 1 && !recent.some(m => m.no === hp.no)) recent.push({ ...hp, n: null });
    for (const m of recent) {
      const g = el('g', { class: 'recent-move' + (state.highlight === m.no ? ' highlight' : ''), 'data-move': m.n ?? '' }, layers.last);
      const colour = m.seat ? SEAT_COLOURS[m.seat] : null;
      const from = pos(m.path[0]);
      // The mover's colour (a style: it must win over the stylesheet's default).
      const style = colour ? { style: `stroke:${colour}` } : {};
      el('rect', { x: from[0] - PW / 2 - 2, y: from[1] - PH / 2 - 2, width: PW + 4, height: PH + 4, rx: U * 0.1, class: 'last-square', ...style }, g);
      el('path', { d: trackD(m.path), class: 'last-path', ...style }, g);
    }
    
    for (const [name, code] of Object.entries(state.pieces)) {
      if (!STATIONS.has(name)) continue;
      const [x, y] = pos(name);
      const cls = [];
      if (state.selectable.has(name)) cls.push('selectable');
      if (state.selected === name) cls.push('selected');
      if (state.eliminated.has(code[0])) cls.push('dead');
      if (state.flags.has(name)) cls.push('revealed-flag');
      const mark = state.marks[name] && code.slice(1) === '?' ? state.marks[name] : null;
      if (mark) cls.push('marked');
      const g = pieceShape(layers.pieces, x, y, code, { cls: cls.join(' '), title: pieceTitle ? pieceTitle(name, code) : name, mark });
      g.setAttribute('data-station', name);
      if (state.flags.has(name) && code.slice(1) === '?') {
        const t = el('text', { x: 0, y: U * 0.075, class: 'piece-text flag-mark' }, g);
        t.textContent = rankLabel ? rankLabel('F') : 'F';
      }
    }
    // Numbers of the recent moves, at their destinations, in the mover's colour.
    for (const m of recent) {
      if (m.n == null) continue;
      const [x, y] = pos(m.path[m.path.length - 1]);
      const g = el('g', { class: 'move-no', transform: `translate(${x + PW / 2 - 2},${y - PH / 2 + 1})`, 'data-move-no': m.n }, layers.targets);
      el('circle', { r: U * 0.2, fill: SEAT_COLOURS[m.seat] }, g);
      const t = el('text', { y: U * 0.075 }, g);
      t.textContent = String(m.n);
    }
    for (const name of state.targets) {
      const [x, y] = pos(name);
      const attack = !!state.pieces[name];
      if (attack) {
        el('rect', { x: x - PW / 2 - 3, y: y - PH / 2 - 3, width: PW + 6, height: PH + 6, rx: U * 0.12, class: 'target attack', 'data-station': name }, layers.targets);
      } else {
        el('circle', { cx: x, cy: y, r: U * 0.34, class: 'target-halo', 'data-station': name }, layers.targets);
        el('circle', { cx: x, cy: y, r: U * 0.2, class: 'target', 'data-station': name }, layers.targets);
      }
    }
    if (state.focus) {
      const [x, y] = pos(state.focus);
      el('rect', { x: x - U * 0.5, y: y - U * 0.33, width: U, height: U * 0.66, rx: U * 0.12, class: 'kb-focus' }, layers.targets);
    }
  }

  function drawPlates() {
    layers.plates.replaceChildren();
    const corners = { bottom: [11, 11], left: [0, 11], top: [0, 0], right: [11, 0] };
    for (const [seat, p] of Object.entries(state.plates)) {
      if (!p) continue;
      const [gx, gy] = corners[seatSide(seat, state.bottom)];
      const w = U * 4.8, hh = U * 2.5;
      const bx = gx ? SIZE - U * 0.35 - w : U * 0.35;
      const by = gy ? SIZE - U * 0.35 - hh : U * 0.35;
      const g = el('g', { class: 'plate' + (p.active ? ' active' : '') + (p.dead ? ' dead' : '') + (p.me ? ' me' : ''), 'data-plate': seat }, layers.plates);
      el('rect', { x: bx, y: by, width: w, height: hh, rx: U * 0.2, class: 'plate-bg' }, g);
      el('rect', { x: bx, y: by, width: U * 0.22, height: hh, rx: U * 0.1, fill: SEAT_COLOURS[seat] }, g);
      const title = el('text', { x: bx + U * 0.45, y: by + U * 0.62, class: 'plate-title', fill: SEAT_COLOURS[seat] }, g);
      title.textContent = p.title || seat;
      if (p.online !== undefined) el('circle', { cx: bx + w - U * 0.35, cy: by + U * 0.45, r: U * 0.12, class: 'plate-presence' + (p.online ? ' on' : '') }, g);
      const name = el('text', { x: bx + U * 0.45, y: by + U * 1.22, class: 'plate-name' }, g);
      name.textContent = (p.name || '').slice(0, 14);
      const sub = el('text', { x: bx + U * 0.45, y: by + U * 2.05, class: 'plate-sub' }, g);
      sub.textContent = p.sub || '';
      if (p.clock) {
        el('rect', { x: bx + w - U * 1.95, y: by + U * 1.35, width: U * 1.7, height: U * 0.9, rx: U * 0.12, class: 'plate-clock-bg' + (p.active ? ' running' : '') + (p.low ? ' low' : '') }, g);
        const c = el('text', { x: bx + w - U * 1.1, y: by + U * 2.0, class: 'plate-clock' + (p.active ? ' running' : '') }, g);
        c.textContent = p.clock;
      }
    }
  }

  svg.addEventListener('click', (ev) => {
    const g = ev.target.closest('[data-station]');
    state.onClick(g ? g.getAttribute('data-station') : null);
  });
  // Right-click (long press on a phone) on a piece: mark it.
  svg.addEventListener('contextmenu', (ev) => {
    const g = ev.target.closest('.layer-pieces [data-station]');
    if (!g) return;
    ev.preventDefault();
    state.onMark(g.getAttribute('data-station'));
  });

  // Keyboard: arrows move a focus cursor over stations (screen directions), Enter/Space clicks.
  svg.setAttribute('tabindex', '0');
  svg.addEventListener('keydown', (ev) => {
    const dirs = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (dirs[ev.key]) {
      ev.preventDefault();
      const [dx, dy] = dirs[ev.key];
      const cur = state.focus ? pos(state.focus) : [coord(8), coord(8)];
      let best = null, bestScore = Infinity;
      for (const s of STATIONS.keys()) {
        const [x, y] = pos(s);
        const vx = x - cur[0], vy = y - cur[1];
        const along = vx * dx + vy * dy;
        if (along <= 1) continue;
        const across = Math.abs(vx * dy - vy * dx);
        const score = along + across * 2.5;
        if (score < bestScore) { bestScore = score; best = s; }
      }
      if (best) { state.focus = best; drawDynamic(); announce(best); }
    } else if ((ev.key === 'Enter' || ev.key === ' ') && state.focus) {
      ev.preventDefault();
      state.onClick(state.focus);
    } else if (ev.key === 'Escape') {
      state.onClick(null);
    }
  });
  function announce(name) {
    svg.setAttribute('aria-label', pieceTitle ? pieceTitle(name, state.pieces[name]) : name);
  }

  const api = {
    svg,
    setView(bottom) { if (bottom && bottom !== state.bottom) { state.bottom = bottom; drawStatic(); } },
    get bottom() { return state.bottom; },
    setPieces(p) { state.pieces = { ...p }; drawDynamic(); },
    get pieces() { return state.pieces; },
    setSelectable(list) { state.selectable = new Set(list || []); drawDynamic(); },
    setSelected(name) { state.selected = name; drawDynamic(); },
    setTargets(list) { state.targets = new Set(list || []); drawDynamic(); },
    setLastMove(path) { state.last = path || []; drawDynamic(); },
    /** The moves to keep marked: [{n, no, seat, path}], numbered in the mover's colour. */
    setRecent(list) { state.recent = list || []; drawDynamic(); },
    /** What we believe hidden pieces are: {station: short label}. */
    setMarks(marks) { state.marks = marks || {}; drawDynamic(); },
    /** Stress one of the recent moves (by its `no`), or none. */
    setHighlight(no, move = null) {
      if (state.highlight === no) return;
      state.highlight = no;
      state.highlightPath = move;
      drawDynamic();
    },
    onMark(fn) { state.onMark = fn; },
    /** Screen position of a station in client pixels (for a menu next to it). */
    clientPos(name) {
      const [x, y] = pos(name);
      const r = svg.getBoundingClientRect();
      return [r.left + (x / SIZE) * r.width, r.top + (y / SIZE) * r.height];
    },
    setEliminated(seats) {
      const next = new Set(seats || []);
      if ([...next].join() !== [...state.eliminated].join()) { state.eliminated = next; drawStatic(); }
    },
    setFlags(names) { state.flags = new Set(names || []); drawDynamic(); },
    /** Name plates in the empty corners: {seat: {title, name, clock, sub, active, dead, online, me}} */
    setPlates(plates) { state.plates = plates || {}; drawPlates(); },
    onClick(fn) { state.onClick = fn; },
    /** Animate a piece along `path` (station names). Resolves when done. */
    animateMove(path, code, ms = 110) {
      return new Promise((resolve) => {
        if (!path || path.length < 2 || document.hidden) return resolve();
        const from = path[0];
        const hiddenPiece = layers.pieces.querySelector(`[data-station="${from}"]`);
        if (hiddenPiece) hiddenPiece.style.visibility = 'hidden';
        const [x0, y0] = pos(from);
        const g = pieceShape(layers.anim, x0, y0, code || 'S?', { cls: 'moving' });
        const pts = path.map(pos);
        const total = ms * (pts.length - 1);
        const start = performance.now();
        const step = (now) => {
          const t = Math.max(0, Math.min(1, (now - start) / total));
          const f = t * (pts.length - 1);
          const i = Math.min(pts.length - 2, Math.floor(f));
          const k = f - i;
          const x = pts[i][0] + (pts[i + 1][0] - pts[i][0]) * k;
          const y = pts[i][1] + (pts[i + 1][1] - pts[i][1]) * k;
          g.setAttribute('transform', `translate(${x},${y})`);
          if (t < 1) requestAnimationFrame(step);
          else { g.remove(); resolve(); }
        };
        requestAnimationFrame(step);
      });
    },
    /** Show a combat outcome marker at a station for a moment. */
    flash(name, outcome, label, ms = 1400) {
      const [x, y] = pos(name);
      layers.fx.replaceChildren(); // one at a time: they never overlap
      const g = el('g', { class: 'combat ' + outcome, transform: `translate(${x},${y})` }, layers.fx);
      el('circle', { r: U * 0.62, class: 'combat-ring' }, g);
      if (label) {
        // Keep the label inside the board.
        const w = Math.max(U * 2.2, label.length * (/^[\x00-\x7f]+$/.test(label) ? 8 : 15) + U * 0.5);
        const lx = Math.max(-x + 4, Math.min(SIZE - x - w - 4, -w / 2));
        const ly = y > U * 2 ? -U * 1.25 : U * 0.75;
        el('rect', { x: lx, y: ly, width: w, height: U * 0.62, rx: U * 0.14, class: 'combat-label-bg' }, g);
        const t = el('text', { x: lx + w / 2, y: ly + U * 0.44, class: 'combat-label' }, g);
        t.textContent = label;
      }
      g.style.animationDuration = ms + 'ms';
      setTimeout(() => g.remove(), ms);
    },
  };
  drawStatic();
  return api;
}
