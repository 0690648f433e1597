// Name plates with clocks: in the empty corners of the cross, in a band above and below Hidden
// Front's tall board (compact: title and name on one line).
import { U } from './layout.js';
import { el, text, SEAT_COLOURS } from './svg.js';

export function drawPlates(ctx) {
  ctx.layers.plates.replaceChildren();
  for (const [seat, p] of Object.entries(ctx.state.plates)) {
    if (p) drawPlate(ctx, seat, p);
  }
}

/** One seat's plate: {title, name, clock, sub, active, low, dead, online, me}. */
function drawPlate({ L, state, layers }, seat, p) {
  const [bx, by, w, hh] = L.plateBox(L.board.sideOf(seat, state.bottom));
  const g = el('g', { class: 'plate' + (p.active ? ' active' : '') + (p.dead ? ' dead' : '') + (p.me ? ' me' : ''), 'data-plate': seat }, layers.plates);
  el('rect', { x: bx, y: by, width: w, height: hh, rx: U * 0.2, class: 'plate-bg' }, g);
  el('rect', { x: bx, y: by, width: U * 0.22, height: hh, rx: U * 0.1, fill: SEAT_COLOURS[seat] }, g);
  const c = L.compactPlates;
  const title = text({ x: bx + U * 0.45, y: by + U * 0.62, class: 'plate-title', fill: SEAT_COLOURS[seat] }, g, p.title || seat);
  const clockX = bx + w - U * 1.95;
  if (p.online !== undefined) el('circle', { cx: c ? clockX - U * 0.35 : bx + w - U * 0.35, cy: by + U * 0.45, r: U * 0.12, class: 'plate-presence' + (p.online ? ' on' : '') }, g);
  const name = el(c ? 'tspan' : 'text', c ? { class: 'plate-name', dx: U * 0.3 } : { x: bx + U * 0.45, y: by + U * 1.22, class: 'plate-name' }, c ? title : g);
  name.textContent = (p.name || '').slice(0, 14);
  text({ x: bx + U * 0.45, y: by + U * (c ? 1.3 : 2.05), class: 'plate-sub' }, g, p.sub || '');
  if (p.clock) {
    const cy = by + (c ? U * 0.3 : U * 1.35);
    el('rect', { x: clockX, y: cy, width: U * 1.7, height: U * 0.9, rx: U * 0.12, class: 'plate-clock-bg' + (p.active ? ' running' : '') + (p.low ? ' low' : '') }, g);
    text({ x: bx + w - U * 1.1, y: cy + U * 0.65, class: 'plate-clock' + (p.active ? ' running' : '') }, g, p.clock);
  }
}
