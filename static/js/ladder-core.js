// The ladders' pure helpers (no DOM, no i18n: tested under node): which ladders there are and
// for which game, a Hidden Front rating as shown, the rating chart's geometry.

// Every ladder, and the game each is played in.
export const LADDERS = ['ranked', 'ranked_dual', 'hf_ranked'];
export const LADDER_GAME = { ranked: 'four_player', ranked_dual: 'four_player', hf_ranked: 'hidden_front' };

// The ladder whose title a name carries in a game of this kind and variant.
export function ladderOf(kind, variant) {
  if (variant === 'hidden_front') return 'hf_ranked';
  return kind === 'ranked_dual' ? 'ranked_dual' : 'ranked';
}

// "1523", or "1500?" while provisional (RD above 110).
export function ratingText(r) {
  if (!r || r.rating == null) return '–';
  return String(Math.round(r.rating)) + (r.provisional ? '?' : '');
}

// A rating with this game's change after it, "1338? (−12)" (a real minus sign, "±0" for none);
// without a change known, the rating alone.
export function ratingWithChange(r, change) {
  if (change == null || !Number.isFinite(change)) return ratingText(r);
  const c = Math.round(change);
  const sign = c > 0 ? '+' : c < 0 ? '\u2212' : '\u00b1';
  return `${ratingText(r)} (${sign}${Math.abs(c)})`;
}

// The chart's geometry, pure: the polyline's points for `history` ([{rating}], oldest first) in a
// box `w`×`hgt` with `pad`, and the rating range shown (at least 100 points tall).
export function chartGeometry(history, w, hgt, pad = 24) {
  const ratings = history.map(p => p.rating);
  if (!ratings.length) return { points: '', min: 0, max: 0, xy: [] };
  let min = Math.min(...ratings), max = Math.max(...ratings);
  if (max - min < 100) { const mid = (max + min) / 2; min = mid - 50; max = mid + 50; }
  const n = ratings.length;
  const xy = ratings.map((r, i) => [
    pad + (n === 1 ? (w - 2 * pad) / 2 : (i * (w - 2 * pad)) / (n - 1)),
    pad + ((max - r) * (hgt - 2 * pad)) / (max - min),
  ].map(v => Math.round(v * 10) / 10));
  return { points: xy.map(p => p.join(',')).join(' '), min, max, xy };
}
