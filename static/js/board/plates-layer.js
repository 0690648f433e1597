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
  const dotX = c ? clockX - U * 0.35 : bx + w - U * 0.35;
  if (p.online !== undefined) el('circle', { cx: dotX, cy: by + U * 0.45, r: U * 0.12, class: 'plate-presence' + (p.online ? ' on' : '') }, g);
  const name = el(c ? 'tspan' : 'text', c ? { class: 'plate-name', dx: U * 0.3 } : { x: bx + U * 0.45, y: by + U * 1.22, class: 'plate-name' }, c ? title : g);
  name.textContent = (p.name || '').slice(0, 14);
  // A long name (a guest's) ends before the presence dot (on the title's line in a compact plate,
  // above the name's end in a corner plate) or the plate's edge, shortened with "…".
  const right = p.online !== undefined ? dotX - U * 0.25 : c && p.clock ? clockX - U * 0.15 : bx + w - U * 0.15;
  // (a text's computed length leaves out the name's `dx`)
  fitName(c ? title : name, name, right - (bx + U * 0.45) - (c ? U * 0.3 : 0));
  text({ x: bx + U * 0.45, y: by + U * (c ? 1.3 : 2.05), class: 'plate-sub' }, g, p.sub || '');
  if (p.clock) {
    const cy = by + (c ? U * 0.3 : U * 1.35);
    el('rect', { x: clockX, y: cy, width: U * 1.7, height: U * 0.9, rx: U * 0.12, class: 'plate-clock-bg' + (p.active ? ' running' : '') + (p.low ? ' low' : '') }, g);
    text({ x: bx + w - U * 1.1, y: cy + U * 0.65, class: 'plate-clock' + (p.active ? ' running' : '') }, g, p.clock);
  }
}

/** Shorten the text of `nameNode` with "…" until `line` (the text holding it) is at most `width` wide. */
function fitName(line, nameNode, width) {
  if (typeof line.getComputedTextLength !== 'function') return;
  const full = nameNode.textContent;
  let len = full.length;
  // an SVG that is not laid out measures 0: nothing to fit
  while (len > 1 && line.getComputedTextLength() > width) {
    len -= 1;
    nameNode.textContent = full.slice(0, len) + '…';
  }
}
