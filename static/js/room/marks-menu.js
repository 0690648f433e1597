// Marks (标记) on enemy backs: the menu next to a piece (drawn from `state.markMenu`), and the
// marks of a game kept in the browser (localStorage, per game).
import { h } from '../dom.js';
import { t, rankName } from '../i18n.js';
import { MARKS } from './state.js';

const storageKey = (game) => 'siguo_marks_' + game;

/** The marks saved for `game`, or null. */
export function loadMarks(game) {
  try { return JSON.parse(localStorage.getItem(storageKey(game)) || 'null'); } catch { return null; }
}

/** Keep `marks` of `game` (none: forgotten). */
export function saveMarks(game, marks) {
  try {
    if (Object.keys(marks).length) localStorage.setItem(storageKey(game), JSON.stringify(marks));
    else localStorage.removeItem(storageKey(game));
  } catch { /* storage full or off */ }
}

/** `pick(station, mark|null)`; `clientPos(station)` → [x, y] in client pixels. */
export function createMarkMenu({ pick, clientPos }) {
  let menu = null;
  return {
    /** Open, move or close the menu as `s.markMenu` says. */
    render(s) {
      if (menu && menu.station === s.markMenu) return;
      if (menu) { menu.el.remove(); menu = null; }
      if (!s.markMenu) return;
      const station = s.markMenu;
      const label = (m) => (m === '?' ? '?' : rankName(m));
      const el = h('div.mark-menu', { 'data-testid': 'mark-menu', role: 'menu' },
        h('div.title', t('mark_title')),
        MARKS.map(m => h('button.btn.small', { type: 'button', 'data-mark': m, title: label(m), onclick: () => pick(station, m) }, label(m))),
        h('button.btn.small', { type: 'button', 'data-mark': '', onclick: () => pick(station, null) }, t('mark_clear')));
      document.body.append(el);
      const [x, y] = clientPos(station);
      el.style.left = Math.max(4, Math.min(innerWidth - el.offsetWidth - 4, x - el.offsetWidth / 2)) + 'px';
      el.style.top = Math.max(56, Math.min(innerHeight - el.offsetHeight - 4, y + 18)) + 'px';
      menu = { station, el };
    },
    remove() { if (menu) menu.el.remove(); },
  };
}
