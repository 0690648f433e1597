// A player's profile: per-ladder standing (points or rating, title) and record, the Hidden Front
// rating history as a chart, per-game statistics, recent games with links to replays.
import { h, fmtDate } from '../dom.js';
import { t, errorText, seatName, botName, gameName } from '../i18n.js';
import { get } from '../api.js';
import { session } from '../session.js';
import { LADDERS, ratingText, titleBadge, ratingChart } from '../ladder.js';

function kindName(k) {
  return t(k === 'casual' ? 'casual' : k === 'practice' ? 'practice_mode' : k === 'ranked' ? 'ranked_mode' : k === 'ranked_dual' ? 'ranked_dual_mode' : k === 'hf_ranked' ? 'hf_ranked_mode' : k || 'casual');
}

export async function render(main, { args }) {
  const name = args[0] || (session.me && session.me.name);
  if (!name) { location.hash = '/login'; return; }
  let profile = null, games = [];
  let err = null;
  try { profile = await get('/api/profiles/' + encodeURIComponent(name)); } catch (e) { err = e; }
  try {
    const d = await get('/api/accounts/' + encodeURIComponent(name) + '/games?limit=30');
    games = Array.isArray(d) ? d : (d.games || []);
  } catch (e) { if (!profile) err = err || e; }
  if (!profile && !games.length && err) {
    main.append(h('div.panel.empty', h('h2', t('error')), h('p', errorText(err))));
    return;
  }
  if (profile && profile.recent_games && profile.recent_games.length && !games.length) {
    games = profile.recent_games.map(g => ({ id: g.game_id, kind: g.kind, seat: (g.seats || []).join('+'), team_result: g.outcome, points: g.points, finished_at: g.finished_at, state: 'finished' }));
  }
  // Points per game come from the ladder's record.
  const pointsOf = new Map(((profile && profile.recent_games) || []).map(g => [g.game_id, g]));

  const ladderCards = LADDERS.map(l => {
    const s = (profile && profile[l]) || {};
    const rated = l === 'hf_ranked';
    const stat = (k, v, id) => h('div.stat', id ? { 'data-testid': id } : {}, h('div.v', String(v ?? 0)), h('div.k', k));
    return h('section.panel', { 'data-testid': 'ladder-' + l },
      h('h2', t(l), s.rank ? h('span.tag', { style: { marginLeft: '8px' } }, '#' + s.rank) : null, ' ', titleBadge(s.title)),
      h('div.stats',
        rated ? stat(t('rating'), ratingText(s.rating), 'rating') : stat(t('points'), s.points),
        stat(t('games'), s.games), stat(t('wins'), s.wins), stat(t('draws'), s.draws),
        stat(t('losses'), s.losses), stat(t('surrenders'), s.surrenders), stat(t('escapes'), s.escapes)));
  });
  const history = (profile && profile.rating_history) || [];
  const chart = h('section.panel', { 'data-testid': 'rating-history' }, h('h2', t('rating_history'), ' · ', t('hf_ranked')),
    history.length ? ratingChart(history) : h('div.empty', t('no_rated_games')));
  // Finished games per game (every kind), from the profile.
  const counts = (profile && profile.games) || {};
  const perGame = h('section.panel', { 'data-testid': 'per-game' }, h('h2', t('games')),
    h('table.list', h('thead', h('tr', h('th', ''), h('th', t('games')), h('th', t('wins')), h('th', t('draws')), h('th', t('losses')))),
      h('tbody', ['four_player', 'hidden_front'].map(v => {
        const c = counts[v] || {};
        return h('tr', h('td', gameName(v)), h('td', String(c.played ?? 0)), h('td', String(c.won ?? 0)), h('td', String(c.drawn ?? 0)), h('td', String(c.lost ?? 0)));
      }))));

  const resultName = (g) => {
    const r = g.team_result || g.outcome;
    // A loss by surrender or escape says so (the ladder counts them apart).
    if (r === 'loss' && (g.surrendered || g.escaped)) return t('loss') + ' · ' + t(g.escaped ? 'elim_escaped' : 'elim_surrendered');
    if (r === 'surrender' || r === 'escape') return t('loss') + ' · ' + t(r === 'escape' ? 'elim_escaped' : 'elim_surrendered');
    if (r) return r === 'win' ? t('win') : r === 'draw' ? t('draw') : r === 'loss' ? t('loss') : t(r === 'surrender' ? 'surrenders' : r === 'escape' ? 'escapes' : r);
    if (g.state && g.state !== 'finished') return t('in_progress');
    return '–';
  };
  // The other team's players (bots by level), from the list item's `players`.
  const opponents = (g) => {
    const mine = String(g.seat || '').split('+').concat(g.seats || []);
    // Hidden Front: the other seat is the opponent; four-player: the other team.
    const team = g.variant === 'hidden_front' ? (s) => s : (s) => (s === 'N' || s === 'S') ? 'NS' : 'EW';
    const ours = mine.length ? team(mine[0]) : null;
    return (g.players || []).filter(p => ours && team(p.seat) !== ours)
      .map(p => p.name || botName(p.bot)).join('、');
  };
  const rows = games.map(g => h('tr',
    h('td', fmtDate(g.finished_at || g.created_at)),
    h('td', kindName(g.kind), ' ', h('span.tag.game-tag', { 'data-testid': 'game-variant' }, gameName(g.variant))),
    h('td', g.seat ? String(g.seat).split('+').map(seatName).join('+') : ''),
    h('td', { 'data-testid': 'opponents' }, opponents(g)),
    h('td', (() => { const p = pointsOf.get(g.id); const v = p ? p.points : g.points; return v == null ? '' : (v > 0 ? '+' : '') + v; })()),
    h('td', h('b', { style: { color: g.team_result === 'win' ? '#2f8f55' : g.team_result === 'loss' ? '#a3281d' : '' } }, resultName(g))),
    h('td', g.state === 'finished' || !g.state ? h('a.btn.small', { href: '#/replay/' + g.id }, t('watch_replay')) : h('a.btn.small', { href: '#/game/' + g.id }, t('spectate')))));

  main.append(
    h('div.hero', h('div', h('h1', { 'data-testid': 'profile-name' }, (profile && (profile.username || profile.name)) || name), h('p', t('profile')))),
    h('div', { style: { display: 'grid', gap: '14px', gridTemplateColumns: 'repeat(auto-fit, minmax(280px, 1fr))', marginBottom: '14px' } }, ladderCards),
    h('div', { style: { display: 'grid', gap: '14px', gridTemplateColumns: 'repeat(auto-fit, minmax(280px, 1fr))', marginBottom: '14px' } }, chart, perGame),
    h('section.panel', h('h2', t('recent_games')),
      games.length ? h('table.list', { 'data-testid': 'games' }, h('thead', h('tr', h('th', t('date')), h('th', t('mode')), h('th', t('seats')), h('th', t('opponents')), h('th', t('points')), h('th', t('result')), h('th', ''))), h('tbody', rows))
        : h('div.empty', t('none'))));
}
