// The board's input: a click on a station (or elsewhere: null), a right-click or long press on a
// piece to mark it, and the keyboard cursor (arrows move it in screen directions, Enter or Space
// clicks, Esc clears).
const DIRS = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };

/** Listen on `ctx.svg`; `redraw()` after the cursor moved. */
export function listen(ctx, redraw) {
  const { svg, state } = ctx;
  svg.addEventListener('click', (ev) => {
    const g = ev.target.closest('[data-station]');
    state.onClick(g ? g.getAttribute('data-station') : null);
  });
  svg.addEventListener('contextmenu', (ev) => {
    const g = ev.target.closest('.layer-pieces [data-station]');
    if (!g) return;
    ev.preventDefault();
    state.onMark(g.getAttribute('data-station'));
  });
  svg.setAttribute('tabindex', '0');
  svg.addEventListener('keydown', (ev) => {
    if (DIRS[ev.key]) {
      ev.preventDefault();
      const best = nextStation(ctx, DIRS[ev.key]);
      if (best) {
        state.focus = best;
        redraw();
        svg.setAttribute('aria-label', ctx.pieceTitle ? ctx.pieceTitle(best, state.pieces[best]) : best);
      }
    } else if ((ev.key === 'Enter' || ev.key === ' ') && state.focus) {
      ev.preventDefault();
      state.onClick(state.focus);
    } else if (ev.key === 'Escape') {
      state.onClick(null);
    }
  });
}

/** The station nearest the cursor in the direction (dx, dy) on screen (straight ahead preferred). */
function nextStation(ctx, [dx, dy]) {
  const { L, state } = ctx;
  const cur = state.focus ? ctx.pos(state.focus) : [L.width / 2, L.height / 2];
  let best = null, bestScore = Infinity;
  for (const s of L.board.stations.keys()) {
    const [x, y] = ctx.pos(s);
    const vx = x - cur[0], vy = y - cur[1];
    const along = vx * dx + vy * dy;
    if (along <= 1) continue;
    const across = Math.abs(vx * dy - vy * dx);
    const score = along + across * 2.5;
    if (score < bestScore) { bestScore = score; best = s; }
  }
  return best;
}
