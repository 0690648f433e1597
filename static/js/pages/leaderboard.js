// Leaderboards, a tab per ladder: paging and "jump to me"; titles beside names; Hidden Front's
// by rating.
import { h, clear } from '../dom.js';
import { t, errorText } from '../i18n.js';
import { get } from '../api.js';
import { session } from '../session.js';
import { LADDERS, ratingText, titleBadge } from '../ladder.js';

const PER_PAGE = 50;

function rowsOf(d) {
  if (Array.isArray(d)) return d;
  return d.entries || d.rows || d.items || d.players || [];
}

export async function render(main, { args, query }) {
  const ladder = LADDERS.includes(args[0]) ? args[0] : 'ranked';
  const rated = ladder === 'hf_ranked';
  let page = Math.max(1, Number(query.get('page')) || 1);
  const me = session.me;
  const body = h('tbody');
  const info = h('div.pager');
  const box = h('div');
  const table = h('table.list', { 'data-testid': 'leaderboard' },
    h('thead', h('tr', h('th', t('rank_col')), h('th', t('player')), h('th', t(rated ? 'rating' : 'points')), h('th', t('games')),
      h('th', t('wins')), h('th', t('draws')), h('th', t('losses')), h('th.hide-sm', t('surrenders')), h('th.hide-sm', t('escapes')))),
    body);

  async function load(url, focusMe = false) {
    clear(box, h('div.empty', t('loading')));
    try {
      const d = await get(url);
      const rows = rowsOf(d);
      if (d.page) page = d.page;
      else if (d.offset != null) page = Math.floor(d.offset / PER_PAGE) + 1;
      clear(body);
      if (!rows.length) { clear(box, h('div.empty', t('empty_board'))); clear(info); return; }
      for (const [i, r] of rows.entries()) {
        const rname = r.username ?? r.name;
        const isMe = me && (rname === me.name || (r.account_id != null && r.account_id === me.id));
        const tr = h('tr', { class: isMe ? 'me' : '' },
          h('td', String(r.rank ?? (page - 1) * PER_PAGE + i + 1)),
          h('td', h('a', { href: '#/profile/' + encodeURIComponent(rname) }, rname), ' ', titleBadge(r.title)),
          h('td', h('b', { 'data-testid': 'score' }, rated ? ratingText(r.rating) : String(r.points ?? 0))),
          h('td', String(r.games ?? 0)),
          h('td', String(r.wins ?? 0)), h('td', String(r.draws ?? 0)), h('td', String(r.losses ?? 0)),
          h('td.hide-sm', String(r.surrenders ?? r.surrender_losses ?? 0)), h('td.hide-sm', String(r.escapes ?? r.escape_losses ?? 0)));
        body.append(tr);
        if (isMe && focusMe) setTimeout(() => tr.scrollIntoView({ block: 'center' }), 0);
      }
      clear(box, table);
      const total = d.total ?? d.total_players ?? null;
      const pages = total != null ? Math.max(1, Math.ceil(total / PER_PAGE)) : null;
      clear(info,
        h('button.btn.small', { disabled: page <= 1, onclick: () => go(page - 1) }, t('prev_page')),
        h('span', t('page', { n: page }) + (pages ? ` / ${pages}` : '')),
        h('button.btn.small', { disabled: pages ? page >= pages : rows.length < PER_PAGE, onclick: () => go(page + 1) }, t('next_page')));
    } catch (e) {
      clear(box, h('div.empty.error-text', errorText(e)));
    }
  }
  function go(p) {
    page = Math.max(1, p);
    history.replaceState(null, '', `#/leaderboard/${ladder}?page=${page}`);
    load(`/api/leaderboard/${ladder}?page=${page}&per_page=${PER_PAGE}`);
  }

  main.append(
    h('div.tabs', LADDERS.map(l => h('a', { href: '#/leaderboard/' + l, class: ladder === l ? 'active' : '', 'data-testid': 'tab-' + l }, t(l)))),
    h('section.panel',
      h('div.row', h('h1.grow', t('leaderboard'), ' · ', t(ladder)),
        me && !me.guest ? h('button.btn.small', { 'data-testid': 'jump-me', onclick: () => load(`/api/leaderboard/${ladder}/me?per_page=${PER_PAGE}`, true) }, t('jump_to_me')) : null),
      box, info));
  go(page);
}
