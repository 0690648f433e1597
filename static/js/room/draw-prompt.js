// A draw offered by another seat, as a prompt over the board: who offers, 同意 / 拒绝
// (`accept_draw` / `decline_draw`). Drawn from the state (`drawPrompt`), so it is there again after
// a reload while the offer stands, and gone once anyone answers or the offer lapses.
import { h, clear } from '../dom.js';
import { t, seatLine } from '../i18n.js';
import * as S from './state.js';

/** `container`: the board's box; `act(type)` sends a room action. */
export function createDrawPrompt(container, act) {
  const el = h('div.draw-prompt', { 'data-testid': 'draw-prompt', role: 'alertdialog', 'aria-live': 'assertive', hidden: true });
  container.append(el);
  let shown = null;
  return {
    el,
    render(s) {
      const offer = S.drawPrompt(s);
      if (offer === shown) return;
      shown = offer;
      el.hidden = !offer;
      if (!offer) { clear(el); return; }
      const answer = (type) => (ev) => {
        for (const b of el.querySelectorAll('button')) b.disabled = true;
        act(type).catch(() => { for (const b of el.querySelectorAll('button')) b.disabled = false; });
        ev.preventDefault();
      };
      clear(el,
        h('div.title', t('draw_prompt_title')),
        h('div', { 'data-testid': 'draw-prompt-text' }, seatLine('draw_offered', offer, S.whoIs(s, offer))),
        h('div.row', { style: { justifyContent: 'center' } },
          h('button.btn.green', { type: 'button', 'data-testid': 'draw-accept', onclick: answer('accept_draw') }, t('draw_prompt_accept')),
          h('button.btn', { type: 'button', 'data-testid': 'draw-decline', onclick: answer('decline_draw') }, t('draw_prompt_decline'))));
    },
  };
}
