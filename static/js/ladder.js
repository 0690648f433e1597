// The ladders as the client shows them: titles (军衔) beside names and the rating-history chart
// (an SVG drawn from the profile's `rating_history`); the pure parts are in ladder-core.js.
import { h } from './dom.js';
import { t } from './i18n.js';
import { chartGeometry } from './ladder-core.js';

export { LADDERS, LADDER_GAME, ladderOf, ratingText, ratingWithChange, chartGeometry } from './ladder-core.js';

// The title badge (nothing for no title: a provisional Hidden Front rating).
export function titleBadge(title) {
  if (!title) return null;
  return h('span.title-badge', { 'data-testid': 'title', 'data-title': title }, t('title_' + title));
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  for (const k of kids) if (k != null) el.append(k);
  return el;
}

// The rating history as an SVG line chart (a dot per game, coloured by its result).
export function ratingChart(history, w = 560, hgt = 180) {
  const g = chartGeometry(history, w, hgt);
  const colour = { win: '#2f8f55', draw: '#8a7a2a', loss: '#a3281d', surrender: '#a3281d', escape: '#a3281d' };
  const label = (y, text) => svg('text', { x: 4, y, 'font-size': 11, fill: '#777' }, text);
  return svg('svg', { viewBox: `0 0 ${w} ${hgt}`, width: '100%', role: 'img', 'aria-label': t('rating_history'), 'data-testid': 'rating-chart' },
    svg('rect', { x: 0, y: 0, width: w, height: hgt, fill: 'none', stroke: '#ddd' }),
    label(14, String(Math.round(g.max))), label(hgt - 6, String(Math.round(g.min))),
    svg('polyline', { points: g.points, fill: 'none', stroke: '#3465a4', 'stroke-width': 2 }),
    ...g.xy.map(([x, y], i) => svg('circle', { cx: x, cy: y, r: 3, fill: colour[history[i].outcome] || '#3465a4' },
      svg('title', {}, `${Math.round(history[i].rating)} · ${t(history[i].outcome === 'win' ? 'win' : history[i].outcome === 'draw' ? 'draw' : 'loss')}`))));
}

// Titles of accounts on a ladder, fetched in batches (`GET /api/titles`) and kept for the page's
// life; `onTitles(ladder, ids, cb)` calls `cb` once the missing ones have arrived.
const known = new Map(); // `${ladder}:${id}` → title or null
const waiting = new Set();
export function titleOf(ladder, id) { return known.get(`${ladder}:${id}`); }
export function onTitles(ladder, ids, cb) {
  const missing = [...new Set(ids.filter(id => id != null && !known.has(`${ladder}:${id}`) && !waiting.has(`${ladder}:${id}`)))];
  if (!missing.length) return;
  missing.forEach(id => waiting.add(`${ladder}:${id}`));
  fetch(`/api/titles?ladder=${ladder}&accounts=${missing.slice(0, 100).join(',')}`)
    .then(r => (r.ok ? r.json() : { titles: {} }))
    .then(d => {
      for (const id of missing) known.set(`${ladder}:${id}`, (d.titles || {})[id] ?? null);
      cb();
    })
    .catch(() => { /* no titles: names stand alone */ })
    .finally(() => missing.forEach(id => waiting.delete(`${ladder}:${id}`)));
}
