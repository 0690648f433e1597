// Movement over the board: a piece animated along its path, and a combat's outcome marker with
// its words for a moment.
import { U } from './layout.js';
import { el, text, pieceShape } from './svg.js';

/** Animate a piece `code` along `path` (station names), `ms` a step. Resolves when done. */
export function animateMove(ctx, path, code, ms = 110) {
  return new Promise((resolve) => {
    if (!path || path.length < 2 || document.hidden) return resolve();
    const from = path[0];
    const hiddenPiece = ctx.layers.pieces.querySelector(`[data-station="${from}"]`);
    if (hiddenPiece) hiddenPiece.style.visibility = 'hidden';
    const [x0, y0] = ctx.pos(from);
    const g = pieceShape(ctx, ctx.layers.anim, x0, y0, code || 'S?', { cls: 'moving' });
    const pts = path.map(ctx.pos);
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
}

/** Show a combat outcome marker at a station for `ms`, with `label` kept inside the board. */
export function flash(ctx, name, outcome, label, ms = 1400) {
  const [x, y] = ctx.pos(name);
  ctx.layers.fx.replaceChildren(); // one at a time: they never overlap
  const g = el('g', { class: 'combat ' + outcome, transform: `translate(${x},${y})` }, ctx.layers.fx);
  el('circle', { r: U * 0.62, class: 'combat-ring' }, g);
  if (label) {
    const w = Math.max(U * 2.2, label.length * (/^[\x00-\x7f]+$/.test(label) ? 8 : 15) + U * 0.5);
    const lx = Math.max(-x + 4, Math.min(ctx.L.width - x - w - 4, -w / 2));
    const ly = y > U * 2 ? -U * 1.25 : U * 0.75;
    el('rect', { x: lx, y: ly, width: w, height: U * 0.62, rx: U * 0.14, class: 'combat-label-bg' }, g);
    text({ x: lx + w / 2, y: ly + U * 0.44, class: 'combat-label' }, g, label);
  }
  g.style.animationDuration = ms + 'ms';
  setTimeout(() => g.remove(), ms);
}
