// The seats panel: who sits where, presence, ready, and (before the start) sit / stand / bots /
// kick.
import { h, clear } from '../dom.js';
import { t, seatName, botName } from '../i18n.js';
import { TEAM, SEAT_COLOURS } from '../board.js';
import * as S from './state.js';
import { ladderOf, titleOf, onTitles, titleBadge } from '../ladder.js';

const INPUTS = ['room', 'seats', 'phase', 'you', 'presence', 'view', 'clock'];

/** `act(type, fields)` sends a room action. */
export function createSeatsView(act) {
  const el = h('section.panel', { 'data-testid': 'seats' });
  let last = null;

  function actions(s, seat, info) {
    const r = s.room;
    const host = r.you && r.you.host;
    if (!info) {
      return [
        h('button.btn.small', { 'data-testid': 'sit-' + seat, onclick: () => act('take_seat', { seat }) }, t('take_seat')),
        host ? h('button.btn.small', { 'data-testid': 'bot-' + seat, onclick: () => act('add_bot', { seat, level: 'standard' }) }, t('add_bot')) : null,
      ];
    }
    if (S.controls(s, seat)) return [h('button.btn.small', { onclick: () => act('leave_seat', { seat }) }, t('leave_seat'))];
    if (host && info.bot) return [h('button.btn.small', { onclick: () => act('remove_bot', { seat }) }, t('remove_bot'))];
    if (host) return [h('button.btn.small.danger', { onclick: () => act('kick', { seat }) }, t('kick'))];
    return [];
  }

  function card(s, seat, phase, elim, tu) {
    const info = S.seatInfo(s, seat);
    const online = s.presence[seat] ?? (info && info.online);
    // Hidden Front: two sides, no teams.
    const meta = S.isHiddenFront(s) ? [] : [h('span', TEAM[seat] === 'NS' ? t('team_NS') : t('team_EW'))];
    if (info && !info.bot) meta.push(meta.length ? ' · ' : '', h('span.presence' + (online ? '.on' : '')), online ? t('online') : t('offline'));
    if (phase === 'waiting' && info && info.ready) meta.push(' · ✓ ' + t('is_ready'));
    if (elim.has(seat)) meta.push(' · ' + t('eliminated'));
    const auto = S.autoOf(s, seat);
    if (auto) meta.push(' · ', h('span.tag.auto-mark', { 'data-testid': 'auto-mark', title: t('auto_' + auto) }, t('auto_mark')));
    return h('div', {
      class: 'seat-card' + (tu === seat && phase === 'battle' ? ' turn' : '') + (elim.has(seat) ? ' dead' : '') + (S.controls(s, seat) ? ' me' : ''),
      'data-seat': seat,
    },
      h('span.swatch', { style: { background: SEAT_COLOURS[seat] } }),
      h('div', { style: { minWidth: 0 } },
        h('div.name', seatName(seat), ' · ', info ? (info.bot ? botName(info.bot) : info.name) : h('span.muted', t('empty_seat')),
          info && info.account_id != null && !info.guest ? titleBadge(titleOf(ladderOf(s.room && s.room.kind, s.room && s.room.variant), info.account_id)) : null),
        h('div.meta', meta)),
      h('div.row', { style: { gap: '4px' } }, phase === 'waiting' && s.room ? actions(s, seat, info) : []));
  }

  return {
    el,
    render(s) {
      if (!S.changed(last, s, INPUTS)) return;
      last = s;
      const r = s.room;
      const phase = s.phase || (r && r.phase);
      const elim = S.eliminated(s);
      const tu = S.turn(s);
      // titles (军衔) of the seated accounts on this game's ladder: drawn again once they arrive
      const ladder = ladderOf(r && r.kind, r && r.variant);
      const ids = S.seatsOf(s).map(x => S.seatInfo(s, x)).filter(i => i && !i.bot && !i.guest).map(i => i.account_id);
      onTitles(ladder, ids, () => { const cur = last; last = null; this.render(cur); });
      clear(el,
        h('h2', t('seats'), r ? h('span.small.muted', { 'data-testid': 'spectator-count', style: { fontWeight: 400, marginLeft: '8px' } }, `${t('spectators')} ${r.spectators || 0}`) : null),
        h('div.seat-list', S.seatsOf(s).map(seat => card(s, seat, phase, elim, tu))));
    },
  };
}
