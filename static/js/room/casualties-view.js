// The casualties panel (阵亡): per seat, what it lost and how many pieces it has left. Our own
// losses by rank; an enemy's as backs, naming only what the game revealed (a fallen commander).
import { h, clear } from '../dom.js';
import { t, seatName, rankName } from '../i18n.js';
import { SEAT_COLOURS } from '../board.js';
import * as S from './state.js';

export function createCasualtiesView() {
  const body = h('div.casualties', { 'data-testid': 'casualties' });
  const el = h('section.panel', h('h2', t('casualties')), body);
  let last = null;
  return {
    el,
    render(s) {
      if (!S.changed(last, s, ['view', 'you'])) return;
      last = s;
      el.hidden = !(s.view && s.view.pieces);
      const c = S.casualties(s);
      clear(body, S.seatsOf(s).filter(seat => c[seat]).map(seat => {
        const x = c[seat];
        const colour = SEAT_COLOURS[seat];
        const chips = x.ranks.map(r => h('span.chip', { style: { color: colour, borderColor: colour }, title: rankName(r) }, rankName(r)));
        for (let i = x.ranks.length; i < x.lost; i++) chips.push(h('span.chip.back', { style: { background: colour, borderColor: colour } }, '?'));
        return h('div.row', { 'data-seat': seat, 'data-lost': x.lost },
          h('b', { style: { color: colour } }, seatName(seat) + (S.controls(s, seat) ? ' · ' + t('you') : '')),
          h('span.lost', chips.length ? chips : h('span.muted', t('lost_none'))),
          h('span.left', t('left_n', { n: x.left })));
      }));
    },
  };
}
