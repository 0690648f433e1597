// The SVG renderer of both boards (geometry in geometry.js): roads, rails, arcs, camps,
// headquarters, pieces, legal targets, recent moves, animated paths, combat markers and name
// plates with clocks, turned so that the viewer's seat is at the bottom. This file holds the
// board's state and its controller; the drawing is in board/: layout.js (where things go),
// svg.js (elements, a piece, a track), static-layer.js (the board), pieces-layer.js (pieces,
// moves, targets, cursor), plates-layer.js, motion.js (animations, combat markers), input.js.
import { boardOf } from './geometry.js';
import { layoutOf } from './board/layout.js';
import { el, pairsOf, SEAT_COLOURS } from './board/svg.js';
import { drawBoard } from './board/static-layer.js';
import { drawPieces } from './board/pieces-layer.js';
import { drawPlates } from './board/plates-layer.js';
import { animateMove, flash } from './board/motion.js';
import { listen } from './board/input.js';

export {
  SEATS, TEAM, COLS, STATIONS, LINKS, HF_SEATS, HF_STATIONS, HF_LINKS, HF_LINES, stationAt, quarterTurns,
  seatSide, boardOf, stationInfo, localName, VARIANTS,
} from './geometry.js';
export { SEAT_COLOURS, SEAT_LIGHT } from './board/svg.js';

export const RANK_CODES = ['9', '8', '7', '6', '5', '4', '3', '2', '1', 'B', 'M', 'F'];

/** Seats whose moves are drawn and named with their colour. */
export const MOVE_COLOURS = SEAT_COLOURS;

const LAYERS = ['bg', 'plates', 'links', 'stations', 'last', 'pieces', 'targets', 'anim', 'fx'];

/**
 * Draw the board into `container`. Returns a controller:
 *   setView(bottomSeat), setPieces({station: "S9"|"S?"}), setSelectable(names), setSelected(name),
 *   setTargets(names), setLastMove(path), animateMove(path, pieceCode) -> Promise, flash(name, outcome),
 *   setEliminated(seats), setFlags(stationNames), onClick(fn(name)), setPlates({seat: plate})
 */
export function createBoard(container, { rankLabel, pieceTitle, stationLabel, variant } = {}) {
  const svg = el('svg', { class: 'board', role: 'grid', 'aria-label': 'board' });
  // What every drawing function reads: the layout, the links by pair, the board's state, the layers.
  const ctx = {
    svg, rankLabel, pieceTitle, stationLabel, layers: {},
    state: {
      bottom: 'S', pieces: {}, selectable: new Set(), selected: null, targets: new Set(), last: [],
      eliminated: new Set(), flags: new Set(), onClick: () => {}, focus: null,
      recent: [], marks: {}, highlight: null, onMark: () => {}, plates: {},
    },
    pos: (name) => ctx.L.xy(name, ctx.state.bottom),
  };
  const setLayout = (v) => {
    ctx.L = layoutOf(v);
    ctx.links = pairsOf(ctx.L.board.links);
    svg.setAttribute('viewBox', `0 0 ${ctx.L.width} ${ctx.L.height}`);
    svg.setAttribute('data-variant', ctx.L.board.variant);
    container.classList.toggle('hf', ctx.L.board.variant === 'hidden_front');
  };
  setLayout(variant);
  container.appendChild(svg);
  for (const name of LAYERS) ctx.layers[name] = el('g', { class: 'layer-' + name }, svg);
  const redraw = () => { drawBoard(ctx); drawPieces(ctx); };
  listen(ctx, () => drawPieces(ctx));
  const api = controller(ctx, { setLayout, redraw });
  redraw();
  return api;
}

/** The board's controller: each setter changes the state and redraws what it touches. */
function controller(ctx, { setLayout, redraw }) {
  const { state } = ctx;
  const pieces = () => drawPieces(ctx);
  const set = (apply) => (...args) => { apply(...args); pieces(); };
  return {
    svg: ctx.svg,
    setView(bottom) { if (bottom && bottom !== state.bottom) { state.bottom = bottom; redraw(); drawPlates(ctx); } },
    /** Switch to the board of `variant` ("four_player" | "hidden_front"); redraws if it changed. */
    setVariant(variant) {
      const next = boardOf(variant).variant;
      if (next === ctx.L.board.variant) return;
      setLayout(next);
      state.focus = null;
      redraw();
      drawPlates(ctx);
    },
    get variant() { return ctx.L.board.variant; },
    get bottom() { return state.bottom; },
    setPieces: set((p) => { state.pieces = { ...p }; }),
    get pieces() { return state.pieces; },
    setSelectable: set((list) => { state.selectable = new Set(list || []); }),
    setSelected: set((name) => { state.selected = name; }),
    setTargets: set((list) => { state.targets = new Set(list || []); }),
    setLastMove: set((path) => { state.last = path || []; }),
    /** The moves to keep marked: [{n, no, seat, path}], numbered in the mover's colour. */
    setRecent: set((list) => { state.recent = list || []; }),
    /** What we believe hidden pieces are: {station: short label}. */
    setMarks: set((marks) => { state.marks = marks || {}; }),
    /** Stress one of the recent moves (by its `no`), or none. */
    setHighlight(no, move = null) {
      if (state.highlight === no) return;
      state.highlight = no;
      state.highlightPath = move;
      pieces();
    },
    onMark(fn) { state.onMark = fn; },
    /** Screen position of a station in client pixels (for a menu next to it). */
    clientPos(name) {
      const [x, y] = ctx.pos(name);
      const r = ctx.svg.getBoundingClientRect();
      return [r.left + (x / ctx.L.width) * r.width, r.top + (y / ctx.L.height) * r.height];
    },
    setEliminated(seats) {
      const next = new Set(seats || []);
      if ([...next].join() !== [...state.eliminated].join()) { state.eliminated = next; redraw(); }
    },
    setFlags: set((names) => { state.flags = new Set(names || []); }),
    /** Name plates in the empty corners: {seat: {title, name, clock, sub, active, dead, online, me}} */
    setPlates(plates) { state.plates = plates || {}; drawPlates(ctx); },
    onClick(fn) { state.onClick = fn; },
    /** Animate a piece along `path` (station names). Resolves when done. */
    animateMove: (path, code, ms) => animateMove(ctx, path, code, ms),
    /**
     * A seat's chat line for a moment (QQ's bubble), where its plate is: in the cross's empty
     * corner beside the plate, over a Hidden Front plate's name. Never over a station.
     */
    say(seat, words, ms = 4000) {
      const side = ctx.L.board.sideOf(seat, state.bottom);
      if (!side || !ctx.L.bubbleBox) return;
      ctx.svg.parentNode.querySelector(`.bubble[data-seat="${seat}"]`)?.remove();
      const [x, y, w, hh] = ctx.L.bubbleBox(side);
      const k = ctx.svg.clientWidth / ctx.L.width;
      const b = document.createElement('div');
      b.className = 'bubble';
      b.dataset.seat = seat;
      b.setAttribute('data-testid', 'bubble');
      b.style.cssText = `left:${ctx.svg.offsetLeft + x * k}px;top:${ctx.svg.offsetTop + y * k}px;width:${w * k}px;max-height:${hh * k}px;border-color:${SEAT_COLOURS[seat]}`;
      b.textContent = words;
      ctx.svg.parentNode.append(b);
      setTimeout(() => b.remove(), ms);
    },
    /** Show a combat outcome marker at a station for a moment. */
    flash: (name, outcome, label, ms) => flash(ctx, name, outcome, label, ms),
  };
}
