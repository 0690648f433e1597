// The board itself, redrawn when the view turns, the game changes or a seat is eliminated:
// region backgrounds tinted by seat, the centre, Hidden Front's mountains, links and stations.
import { U } from './layout.js';
import { el, text, segment, SEAT_COLOURS, SEAT_LIGHT } from './svg.js';

/** Draw the board into `ctx.layers` (every layer but the pieces is cleared first). */
export function drawBoard(ctx) {
  for (const l of Object.values(ctx.layers)) if (l !== ctx.layers.pieces) l.replaceChildren();
  drawRegions(ctx);
  drawMountains(ctx);
  drawLinks(ctx);
  drawStations(ctx);
}

function drawRegions({ L, pos, state, layers }) {
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
}

/** Hidden Front: the mountains (山界) where the front cannot be crossed. */
function drawMountains({ L, pos, layers }) {
  for (const [a, b] of L.mountains) {
    const [ax, ay] = pos(a), [bx, by] = pos(b);
    const x = (ax + bx) / 2, y = (ay + by) / 2, w = U * 0.7, hh = Math.abs(by - ay) * 0.32;
    const g = el('g', { class: 'mountain', 'data-mountain': a[0] }, layers.bg);
    el('path', { d: `M${x - w},${y + hh} L${x - w * 0.35},${y - hh} L${x},${y + hh * 0.1} L${x + w * 0.4},${y - hh * 0.8} L${x + w},${y + hh} Z`, class: 'mountain-shape' }, g);
  }
}

function drawLinks(ctx) {
  for (const l of ctx.L.board.links) {
    const d = 'M' + ctx.pos(l.a).join(',') + ' ' + segment(ctx, l.a, l.b);
    if (l.rail) {
      el('path', { d, class: 'rail-base' }, ctx.layers.links);
      el('path', { d, class: 'rail-ties' }, ctx.layers.links);
    } else {
      el('path', { d, class: 'road' }, ctx.layers.links);
    }
  }
}

function drawStations({ L, pos, layers, stationLabel }) {
  const sx = L.pw / (U * 0.95); // wider stations where the pieces are wider
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
    if (stationLabel && s.kind !== 'ordinary') text({ x, y: y + U * 0.07, class: 'station-label' }, g, stationLabel(s.kind));
  }
}
