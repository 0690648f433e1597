// What changes move by move, from the board's state: the recent moves (numbered, in the mover's
// colour, along the track), the pieces (selectable, selected, dead, revealed flags, marks), legal
// targets and the keyboard cursor.
import { U } from './layout.js';
import { el, text, pieceShape, trackD, SEAT_COLOURS } from './svg.js';

export function drawPieces(ctx) {
  const { layers } = ctx;
  layers.pieces.replaceChildren();
  layers.targets.replaceChildren();
  layers.last.replaceChildren();
  const recent = recentTracks(ctx.state);
  drawRecent(ctx, recent);
  for (const [name, code] of Object.entries(ctx.state.pieces)) drawPiece(ctx, name, code);
  drawMoveNumbers(ctx, recent);
  drawTargets(ctx);
  if (ctx.state.focus) {
    const [x, y] = ctx.pos(ctx.state.focus);
    el('rect', { x: x - U * 0.5, y: y - U * 0.33, width: U, height: U * 0.66, rx: U * 0.12, class: 'kb-focus' }, layers.targets);
  }
}

/** The moves to draw: the recent ones, else the last move; and a highlighted one from the log. */
function recentTracks(state) {
  const recent = state.recent.filter(m => m.path && m.path.length > 1);
  if (!recent.length && state.last.length > 1) recent.push({ path: state.last, n: null, seat: null });
  const hp = state.highlightPath;
  if (hp && hp.path && hp.path.length > 1 && !recent.some(m => m.no === hp.no)) recent.push({ ...hp, n: null });
  return recent;
}

function drawRecent(ctx, recent) {
  const { L, state } = ctx;
  for (const m of recent) {
    const g = el('g', { class: 'recent-move' + (state.highlight === m.no ? ' highlight' : ''), 'data-move': m.n ?? '' }, ctx.layers.last);
    const colour = m.seat ? SEAT_COLOURS[m.seat] : null;
    const from = ctx.pos(m.path[0]);
    // The mover's colour (a style: it must win over the stylesheet's default).
    const style = colour ? { style: `stroke:${colour}` } : {};
    el('rect', { x: from[0] - L.pw / 2 - 2, y: from[1] - L.ph / 2 - 2, width: L.pw + 4, height: L.ph + 4, rx: U * 0.1, class: 'last-square', ...style }, g);
    el('path', { d: trackD(ctx, m.path), class: 'last-path', ...style }, g);
  }
}

function drawPiece(ctx, name, code) {
  const { state } = ctx;
  if (!ctx.L.board.stations.has(name)) return;
  const [x, y] = ctx.pos(name);
  const cls = [];
  if (state.selectable.has(name)) cls.push('selectable');
  if (state.selected === name) cls.push('selected');
  if (state.eliminated.has(code[0])) cls.push('dead');
  if (state.flags.has(name)) cls.push('revealed-flag');
  const mark = state.marks[name] && code.slice(1) === '?' ? state.marks[name] : null;
  if (mark) cls.push('marked');
  const title = ctx.pieceTitle ? ctx.pieceTitle(name, code) : name;
  const g = pieceShape(ctx, ctx.layers.pieces, x, y, code, { cls: cls.join(' '), title, mark });
  g.setAttribute('data-station', name);
  if (state.flags.has(name) && code.slice(1) === '?') {
    text({ x: 0, y: U * 0.075, class: 'piece-text flag-mark' }, g, ctx.rankLabel ? ctx.rankLabel('F') : 'F');
  }
}

/**
 * Numbers of the recent moves, at their destinations, in the mover's colour: the move's own number
 * (`no`, its step, as the log says it) where it has one.
 */
function drawMoveNumbers(ctx, recent) {
  const { L } = ctx;
  for (const m of recent) {
    if (m.n == null) continue;
    const label = String(m.no ?? m.n);
    const [x, y] = ctx.pos(m.path[m.path.length - 1]);
    const g = el('g', { class: 'move-no', transform: `translate(${x + L.pw / 2 - 2},${y - L.ph / 2 + 1})`, 'data-move-no': label }, ctx.layers.targets);
    // a pill as wide as the number (step numbers reach three digits)
    const w = Math.max(U * 0.4, U * 0.12 + label.length * U * 0.2);
    el('rect', { x: -w / 2, y: -U * 0.2, width: w, height: U * 0.4, rx: U * 0.2, fill: SEAT_COLOURS[m.seat] }, g);
    text({ y: U * 0.075 }, g, label);
  }
}

function drawTargets(ctx) {
  const { L, state, layers } = ctx;
  for (const name of state.targets) {
    const [x, y] = ctx.pos(name);
    // a tap anywhere in the station's cell hits the target
    el('rect', { x: x - L.cellW / 2, y: y - L.cellH / 2, width: L.cellW, height: L.cellH, class: 'hit', 'data-station': name }, layers.targets);
    if (state.pieces[name]) {
      el('rect', { x: x - L.pw / 2 - 3, y: y - L.ph / 2 - 3, width: L.pw + 6, height: L.ph + 6, rx: U * 0.12, class: 'target attack', 'data-station': name }, layers.targets);
    } else {
      el('circle', { cx: x, cy: y, r: U * 0.34, class: 'target-halo', 'data-station': name }, layers.targets);
      el('circle', { cx: x, cy: y, r: U * 0.2, class: 'target', 'data-station': name }, layers.targets);
    }
  }
}
