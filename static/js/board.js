// The SVG renderer of both boards (geometry in geometry.js): roads, rails, arcs, camps,
// headquarters, pieces, legal targets, recent moves, animated paths, combat markers and name
// plates with clocks, turned so that the viewer's seat is at the bottom.
import {
  SEATS, STATIONS, boardOf, quarterTurns,
} from './geometry.js';

export {
  SEATS, TEAM, COLS, STATIONS, LINKS, HF_SEATS, HF_STATIONS, HF_LINKS, HF_LINES, stationAt, quarterTurns,
  seatSide, boardOf, stationInfo, localName, VARIANTS,
} from './geometry.js';

export const SEAT_COLOURS = { N: '#2f8f55', E: '#2e66c9', S: '#cf3b2b', W: '#b07d12' };
export const SEAT_LIGHT = { N: '#e3f3e8', E: '#e2ebfa', S: '#fbe6e2', W: '#f7eed6' };

export const RANK_CODES = ['9', '8', '7', '6', '5', '4', '3', '2', '1', 'B', 'M', 'F'];

const U = 40; // grid unit in SVG user units

/**
 * How a board is laid out in SVG user units: station positions for a viewer, piece size, the
 * size of the drawing, the region backgrounds and where the name plates go.
 */
function layoutOf(variant) {
  const board = boardOf(variant);
  if (board.variant === 'hidden_front') {
    // Wide columns (pieces are wide), a gap at the front, a band for a name plate above and below.
    const CX = 1.6, MX = 0.9, PLATE = 1.7, MY = 0.55, FRONT = 0.9;
    const width = (4 * CX + 2 * MX) * U;
    const height = (11 + FRONT + 2 * (PLATE + MY)) * U;
    return {
      board, width, height, pw: U * 1.36, ph: U * 0.66, compactPlates: true,
      xy(name, bottom) {
        const [gx, gy] = board.place(name, bottom);
        return [(MX + gx * CX) * U, (PLATE + MY + gy + (gy >= 6 ? FRONT : 0)) * U];
      },
      regions: [['N', 'A1', 'E6'], ['S', 'A7', 'E12']],
      centre: null,
      /** The mountains between the halves at columns B and D. */
      mountains: [['B6', 'B7'], ['D6', 'D7']],
      plateBox(side) {
        const y = side === 'bottom' ? height - PLATE * U + U * 0.05 : U * 0.15;
        return [U * 0.2, y, width - U * 0.4, PLATE * U - U * 0.2];
      },
    };
  }
  const GAP = 0.1; // extra spacing between the regions and the centre, in units
  const MARGIN = 0.5;
  const coord = (v) => (v + (v >= 11 ? GAP : 0) - (v <= 5 ? GAP : 0) + GAP + MARGIN) * U;
  const size = (16 + 2 * GAP + 2 * MARGIN) * U;
  const corners = { bottom: [11, 11], left: [0, 11], top: [0, 0], right: [11, 0] };
  return {
    // Pieces nearly fill the space between neighbouring stations: as large as the board allows.
    board, width: size, height: size, pw: U * 0.95, ph: U * 0.62, compactPlates: false,
    xy(name, bottom) {
      const [gx, gy] = board.place(name, bottom);
      return [coord(gx), coord(gy)];
    },
    /** The centre of an arc's quarter circle: the empty corner between the two regions. */
    arcCentre(a, b, bottom) {
      const sa = STATIONS.get(a), sb = STATIONS.get(b);
      let x = Math.abs(sa.x - 8) > Math.abs(sb.x - 8) ? sa.x : sb.x;
      let y = Math.abs(sa.y - 8) > Math.abs(sb.y - 8) ? sa.y : sb.y;
      for (let i = 0; i < quarterTurns(bottom); i++) [x, y] = [16 - y, x];
      return [coord(x), coord(y)];
    },
    regions: SEATS.map(seat => [seat, seat + 'a1', seat + 'e6']),
    centre: ['Ca1', 'Cc3'],
    mountains: [],
    plateBox(side) {
      const [gx, gy] = corners[side];
      const w = U * 4.8, hh = U * 2.5;
      return [gx ? size - U * 0.35 - w : U * 0.35, gy ? size - U * 0.35 - hh : U * 0.35, w, hh];
    },
  };
}

const SVGNS = 'http://www.w3.org/2000/svg';
function el(tag, attrs = {}, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** Seats whose moves are drawn and named with their colour. */
export const MOVE_COLOURS = SEAT_COLOURS;

const pairsOf = (links) => {
  const m = new Map();
  for (const l of links) { m.set(l.a + '-' + l.b, l); m.set(l.b + '-' + l.a, l); }
  return m;
};
/**
 * Draw the board into `container`. Returns a controller:
 *   setView(bottomSeat), setPieces({station: "S9"|"S?"}), setSelectable(names), setSelected(name),
 *   setTargets(names), setLastMove(path), animateMove(path, pieceCode) -> Promise, flash(name, outcome),
 *   setEliminated(seats), setFlags(stationNames), onClick(fn(name)), setLabels({seat: text})
 */
export function createBoard(container, { rankLabel, pieceTitle, stationLabel, variant } = {}) {
  let L = layoutOf(variant);
  let linkByPair = pairsOf(L.board.links);
  let PW = L.pw, PH = L.ph;
  const svg = el('svg', { class: 'board', role: 'grid', 'aria-label': 'board' });
  const sizeSvg = () => {
    svg.setAttribute('viewBox', `0 0 ${L.width} ${L.height}`);
    svg.setAttribute('data-variant', L.board.variant);
    container.classList.toggle('hf', L.board.variant === 'hidden_front');
  };
  sizeSvg();
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
    return L.xy(name, state.bottom);
  }

  /** The path command from station `a` (already reached) to its neighbour `b`: a line or the arc. */
  function segment(a, b) {
    const [x1, y1] = pos(a), [x2, y2] = pos(b);
    const l = linkByPair.get(a + '-' + b);
    if (!l || !l.arc) return `L${x2},${y2}`;
    // Quarter circle around the empty corner between the two regions.
    const [cx, cy] = L.arcCentre(a, b, state.bottom);
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
    const box = (a, b, pad) => {
      const [ax, ay] = pos(a), [bx, by] = pos(b);
      return {
        x: Math.min(ax, bx) - pad, y: Math.min(ay, by) - pad,
        width: Math.abs(ax - bx) + 2 * pad, height: Math.abs(ay - by) + 2 * pad, rx: U * 0.25,
      };
    };
    for (const [seat, a, b] of L.regions) {
      el('rect', {
        ...box(a, b, U * 0.55), class: 'region' + (state.eliminated.has(seat) ? ' eliminated' : ''),
        fill: SEAT_LIGHT[seat], stroke: SEAT_COLOURS[seat], 'data-seat': seat,
      }, layers.bg);
    }
    if (L.centre) el('rect', { ...box(L.centre[0], L.centre[1], U * 0.5), class: 'centre' }, layers.bg);
    // Hidden Front: the mountains (山界) where the front cannot be crossed.
    for (const [a, b] of L.mountains) {
      const [ax, ay] = pos(a), [bx, by] = pos(b);
      const x = (ax + bx) / 2, y = (ay + by) / 2, w = U * 0.7, hh = Math.abs(by - ay) * 0.32;
      const g = el('g', { class: 'mountain', 'data-mountain': a[0] }, layers.bg);
      el('path', { d: `M${x - w},${y + hh} L${x - w * 0.35},${y - hh} L${x},${y + hh * 0.1} L${x + w * 0.4},${y - hh * 0.8} L${x + w},${y + hh} Z`, class: 'mountain-shape' }, g);
    }
    // Links.
    for (const l of L.board.links) {
      const d = 'M' + pos(l.a).join(',') + ' ' + segment(l.a, l.b);
      if (l.rail) {
        el('path', { d, class: 'rail-base' }, layers.links);
        el('path', { d, class: 'rail-ties' }, layers.links);
      } else {
        el('path', { d, class: 'road' }, layers.links);
      }
    }
    // Stations.
    const sx = PW / (U * 0.95); // wider stations where the pieces are wider
    for (const s of L.board.stations.values()) {
      const [x, y] = pos(s.name);
      const g = el('g', { class: 'station', 'data-station': s.name }, layers.stations);
      if (s.kind === 'camp') {
        el('ellipse', { cx: x, cy: y, rx: U * 0.36 * sx, ry: U * 0.36, class: 'camp' }, g);
      } else if (s.kind === 'hq') {
        el('rect', { x: x - U * 0.44 * sx, y: y - U * 0.3, width: U * 0.88 * sx, height: U * 0.6, rx: U * 0.3, class: 'hq' }, g);
      } else {
        el('rect', { x: x - U * 0.36 * sx, y: y - U * 0.22, width: U * 0.72 * sx, height: U * 0.44, rx: U * 0.06, class: 'post' + (s.seat ? '' : ' centre-post') }, g);
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
      if (!L.board.stations.has(name)) continue;
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
    for (const [seat, p] of Object.entries(state.plates)) {
      if (!p) continue;
      const [bx, by, w, hh] = L.plateBox(L.board.sideOf(seat, state.bottom));
      const g = el('g', { class: 'plate' + (p.active ? ' active' : '') + (p.dead ? ' dead' : '') + (p.me ? ' me' : ''), 'data-plate': seat }, layers.plates);
      el('rect', { x: bx, y: by, width: w, height: hh, rx: U * 0.2, class: 'plate-bg' }, g);
      el('rect', { x: bx, y: by, width: U * 0.22, height: hh, rx: U * 0.1, fill: SEAT_COLOURS[seat] }, g);
      // A compact plate (one band above or below the board): title and name on one line.
      const c = L.compactPlates;
      const title = el('text', { x: bx + U * 0.45, y: by + U * 0.62, class: 'plate-title', fill: SEAT_COLOURS[seat] }, g);
      title.textContent = p.title || seat;
      const clockX = bx + w - U * 1.95;
      if (p.online !== undefined) el('circle', { cx: c ? clockX - U * 0.35 : bx + w - U * 0.35, cy: by + U * 0.45, r: U * 0.12, class: 'plate-presence' + (p.online ? ' on' : '') }, g);
      const name = el(c ? 'tspan' : 'text', c ? { class: 'plate-name', dx: U * 0.3 } : { x: bx + U * 0.45, y: by + U * 1.22, class: 'plate-name' }, c ? title : g);
      name.textContent = (p.name || '').slice(0, 14);
      const sub = el('text', { x: bx + U * 0.45, y: by + U * (c ? 1.3 : 2.05), class: 'plate-sub' }, g);
      sub.textContent = p.sub || '';
      if (p.clock) {
        const cy = by + (c ? U * 0.3 : U * 1.35);
        el('rect', { x: clockX, y: cy, width: U * 1.7, height: U * 0.9, rx: U * 0.12, class: 'plate-clock-bg' + (p.active ? ' running' : '') + (p.low ? ' low' : '') }, g);
        const ct = el('text', { x: bx + w - U * 1.1, y: cy + U * 0.65, class: 'plate-clock' + (p.active ? ' running' : '') }, g);
        ct.textContent = p.clock;
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
      const cur = state.focus ? pos(state.focus) : [L.width / 2, L.height / 2];
      let best = null, bestScore = Infinity;
      for (const s of L.board.stations.keys()) {
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
    setView(bottom) { if (bottom && bottom !== state.bottom) { state.bottom = bottom; drawStatic(); drawPlates(); } },
    /** Switch to the board of `variant` ("four_player" | "hidden_front"); redraws if it changed. */
    setVariant(variant) {
      const next = boardOf(variant).variant;
      if (next === L.board.variant) return;
      L = layoutOf(next);
      linkByPair = pairsOf(L.board.links);
      PW = L.pw; PH = L.ph;
      state.focus = null;
      sizeSvg();
      drawStatic();
      drawPlates();
    },
    get variant() { return L.board.variant; },
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
      return [r.left + (x / L.width) * r.width, r.top + (y / L.height) * r.height];
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
        const lx = Math.max(-x + 4, Math.min(L.width - x - w - 4, -w / 2));
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
