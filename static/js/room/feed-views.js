// The two append-only feeds of a room: the chat (room and team tabs, system lines) and the game
// log (one line per logged event). Each render appends the entries that are new in the state.
import { h, clear } from '../dom.js';
import { t, seatName } from '../i18n.js';
import { SEAT_COLOURS } from '../board.js';

/** Append `list[shown…]` to `box` with `line`, scrolled to the end; returns the new count. */
function appendNew(box, list, shown, line) {
  if (list.length < shown) { clear(box); shown = 0; }
  if (list.length === shown) return shown;
  for (const entry of list.slice(shown)) box.append(line(entry));
  box.scrollTop = box.scrollHeight;
  return list.length;
}

function chatLine(m) {
  if (m.sys) return h('div.sys', t(m.sys, { seat: seatName(m.seat) }));
  return h('div', { class: 'msg' + (m.team ? ' team' : '') },
    h('span.who', { style: { color: m.seat ? SEAT_COLOURS[m.seat] : '#444' } }, m.from + ':'), m.text);
}

/** The text of a logged update event (state.log). */
export function logText(ev) {
  const s = ev.seat ? seatName(ev.seat) : '';
  switch (ev.type) {
    case 'moved': return `${s}: ${ev.from} → ${ev.to}${ev.combat ? ' · ' + t(ev.combat) : ''}`;
    case 'skipped': return t('skipped', { seat: s, n: ev.skips });
    case 'flag_revealed': return t('flag_revealed', { seat: s });
    case 'eliminated': return t('seat_eliminated', { seat: s }) + ` (${t('elim_' + ev.reason)})`;
    case 'draw_offered': return t('draw_offered', { seat: s });
    case 'draw_declined': return `${s}: ${t('decline_draw')}`;
    case 'deploy_confirmed': return `${s}: ${t('deployed')}`;
    case 'battle_started': return t('phase_battle');
    case 'escaped': return `${s}: ${t('elim_escaped')}`;
    case 'game_over': {
      const st = ev.status || {};
      return t('game_over') + ' · ' + (st.state === 'draw' ? t('draw') : t('winner', { team: t('team_' + st.winner) }));
    }
    default: return ev.type;
  }
}

/** `on`: {tab(name), send(text) → Promise (resolves when the server took it)}. */
export function createChatView(on) {
  const log = h('div.chat-log', { 'data-testid': 'chat-log', 'aria-live': 'polite' });
  const input = h('input', { type: 'text', maxlength: 200, placeholder: t('chat_placeholder'), 'aria-label': t('chat') });
  const tabRoom = h('button.btn.small.active', { type: 'button', onclick: () => on.tab('room') }, t('room_chat'));
  const tabTeam = h('button.btn.small', { type: 'button', onclick: () => on.tab('team') }, t('team_chat'));
  const el = h('section.panel.chat',
    h('div.chat-tabs', tabRoom, tabTeam),
    log,
    h('form', {
      onsubmit: async (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (text && await on.send(text)) input.value = '';
      },
    }, input, h('button.btn', { type: 'submit' }, t('say'))));
  let shown = 0;
  return {
    el,
    render(s) {
      tabRoom.classList.toggle('active', s.chatTab === 'room');
      tabTeam.classList.toggle('active', s.chatTab === 'team');
      shown = appendNew(log, s.chat, shown, chatLine);
    },
  };
}

export function createLogView() {
  const el = h('div.log', { 'data-testid': 'log' });
  let shown = 0;
  return {
    el,
    render(s) { shown = appendNew(el, s.log, shown, (ev) => h('div', logText(ev))); },
  };
}
