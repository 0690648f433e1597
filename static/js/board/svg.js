// The board's drawing primitives: SVG elements, the seats' colours, a piece, a track along links.
import { U } from './layout.js';

export const SEAT_COLOURS = { N: '#2f8f55', E: '#2e66c9', S: '#cf3b2b', W: '#b07d12' };
export const SEAT_LIGHT = { N: '#e3f3e8', E: '#e2ebfa', S: '#fbe6e2', W: '#f7eed6' };

const SVGNS = 'http://www.w3.org/2000/svg';

/** An SVG element with `attrs`, appended to `parent` if given. */
export function el(tag, attrs = {}, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

/** Text in an SVG element. */
export function text(attrs, parent, content) {
  const t = el('text', attrs, parent);
  t.textContent = content;
  return t;
}

/** Every link by "a-b" and "b-a". */
export function pairsOf(links) {
  const m = new Map();
  for (const l of links) { m.set(l.a + '-' + l.b, l); m.set(l.b + '-' + l.a, l); }
  return m;
}

/**
 * A piece `code` ("S9" face up, "S?" a back) at (x, y) in `parent`, `ctx.L.pw` × `ctx.L.ph`;
 * `opts`: cls (extra classes), mark (on a back), title.
 */
export function pieceShape(ctx, parent, x, y, code, opts = {}) {
  const seat = code[0], rank = code.slice(1);
  const hidden = rank === '?';
  const g = el('g', { class: 'piece' + (hidden ? ' back' : ' face') + (opts.cls ? ' ' + opts.cls : ''), transform: `translate(${x},${y})` }, parent);
  const w = ctx.L.pw, h = ctx.L.ph;
  // a tap anywhere in the station's cell hits the piece, not only on its body
  if (ctx.L.cellW) el('rect', { x: -ctx.L.cellW / 2, y: -ctx.L.cellH / 2, width: ctx.L.cellW, height: ctx.L.cellH, class: 'hit' }, g);
  el('rect', {
    x: -w / 2, y: -h / 2, width: w, height: h, rx: U * 0.08,
    fill: hidden ? SEAT_COLOURS[seat] : '#fffdf6', stroke: SEAT_COLOURS[seat], 'stroke-width': hidden ? 1 : 2.2,
    class: 'piece-body',
  }, g);
  if (hidden) {
    el('rect', { x: -w / 2 + 3, y: -h / 2 + 3, width: w - 6, height: h - 6, rx: U * 0.05, class: 'piece-back-inner' }, g);
  } else {
    const label = ctx.rankLabel ? ctx.rankLabel(rank) : rank;
    const latin = /^[\x00-\x7f]+$/.test(label);
    const t = text({ x: 0, y: U * (latin ? 0.07 : 0.1), fill: SEAT_COLOURS[seat], class: 'piece-text' + (rank === 'F' ? ' flag' : '') + (latin ? ' latin' : '') }, g, label);
    fitText(t, label, w - 6);
  }
  if (hidden && opts.mark) fitText(text({ x: 0, y: U * 0.1, class: 'piece-text mark' }, g, opts.mark), opts.mark, w - 6);
  if (opts.title) { const ti = el('title', {}, g); ti.textContent = opts.title; }
  return g;
}

/**
 * Keep a label inside `width` user units: a label longer than its piece allows ("Bomb", "Capt" in
 * English) is squeezed to fit. The width is estimated from the characters (a CJK character is as
 * wide as the font size, a bold Latin one up to 0.7 of it), so it works before the text is laid out.
 */
export function fitText(node, label, width) {
  const size = /[^\x00-\x7f]/.test(label) ? 17 : 13;
  const est = [...label].reduce((n, ch) => n + (ch.charCodeAt(0) > 0x7f ? size : size * 0.7), 0);
  if (est > width) {
    node.setAttribute('textLength', String(width));
    node.setAttribute('lengthAdjust', 'spacingAndGlyphs');
  }
  return node;
}

/** The path command from station `a` (already reached) to its neighbour `b`: a line or the arc. */
export function segment(ctx, a, b) {
  const [x1, y1] = ctx.pos(a), [x2, y2] = ctx.pos(b);
  const l = ctx.links.get(a + '-' + b);
  if (!l || !l.arc) return `L${x2},${y2}`;
  // Quarter circle around the empty corner between the two regions.
  const [cx, cy] = ctx.L.arcCentre(a, b, ctx.state.bottom);
  const r = Math.hypot(x1 - cx, y1 - cy);
  // Sweep so that the arc bulges towards the centre of the board.
  const cross = (x1 - cx) * (y2 - cy) - (y1 - cy) * (x2 - cx);
  return `A${r},${r} 0 0 ${cross > 0 ? 1 : 0} ${x2},${y2}`;
}

/** A path along the track through the stations `names` (arcs followed). */
export function trackD(ctx, names) {
  return names.map((n, i) => (i ? segment(ctx, names[i - 1], n) : 'M' + ctx.pos(n).join(','))).join(' ');
}
