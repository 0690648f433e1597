// The two append-only feeds of a room: the chat (room and team tabs, system lines) and the game
// log (one line per logged event). Each render appends the entries that are new in the state.
import { h, clear } from '../dom.js';
import { t, seatName, winnerName } from '../i18n.js';
import { SEAT_COLOURS } from '../board.js';
import { moveWords } from './words.js';
import * as S from './state.js';

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
    case 'moved': return moveWords(ev);
    case 'skipped': return t('skipped', { seat: s, n: ev.skips });
    case 'flag_revealed': return t('flag_revealed', { seat: s });
    case 'eliminated': return t('seat_eliminated', { seat: s }) + ` (${t('elim_' + ev.reason)})`;
    case 'draw_offered': return t('draw_offered', { seat: s });
    case 'draw_declined': return `${s}: ${t('decline_draw')}`;
    case 'draw_accepted': return `${s}: ${t('accept_draw')}`;
    case 'draw_offer_expired': return t('draw_offer_lapsed', { seat: s });
    case 'deploy_confirmed': return `${s}: ${t('deployed')}`;
    case 'battle_started': return t('battle_begins');
    case 'escaped': return `${s}: ${t('elim_escaped')}`;
    case 'game_over': {
      const st = ev.status || {};
      return t('game_over') + ' · ' + (st.state === 'draw' ? t('draw') : t('winner', { team: winnerName(st.winner) }));
    }
    default: return ev.type;
  }
}

/** `on`: {tab(name), send(text) → Promise (resolves when the server took it)}. */
export function createChatView(on) {
  const log = h('div.chat-log', { 'data-testid': 'chat-log', 'aria-live': 'polite' });
  const input = h('input', { type: 'text', maxlength: 200, placeholder: t('chat_placeholder'), 'aria-label': t('chat') });
  // Where the message goes (not a filter of the log): a choice next to the input.
  const radio = (value, label) => {
    const inp = h('input', { type: 'radio', name: 'chat-to', value, 'data-testid': 'chat-to-' + value, onchange: () => on.tab(value) });
    return [inp, h('label', inp, label)];
  };
  const [tabRoom, roomLabel] = radio('room', t('room_chat'));
  const [tabTeam, teamLabel] = radio('team', t('team_chat'));
  const sendTo = h('div.send-to', t('send_to') + ':', roomLabel, teamLabel);
  const el = h('section.panel.chat',
    log,
    h('form', {
      onsubmit: async (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (text && await on.send(text)) input.value = '';
      },
    }, input, h('button.btn', { type: 'submit' }, t('say'))),
    sendTo);
  let shown = 0;
  return {
    el,
    render(s) {
      sendTo.hidden = S.isHiddenFront(s); // two sides, no team to talk to
      tabRoom.checked = s.chatTab === 'room';
      tabTeam.checked = s.chatTab === 'team';
      shown = appendNew(log, s.chat, shown, chatLine);
    },
  };
}

/**
 * The game log beside the board, newest first: numbered moves in their seat's colour, told in
 * words. `on.show(no)` (hover, click) stresses a move on the board; null: none.
 */
export function createLogView(on = {}) {
  const el = h('div.log.game-log', { 'data-testid': 'log' });
  let shown = 0, fixed = null;
  function line(ev) {
    const no = ev.type === 'moved' ? ev.no : null;
    const badge = no != null
      ? h('span.no', { style: { background: SEAT_COLOURS[ev.seat] } }, String(no))
      : h('span.no.plain', '·');
    const words = logText(ev);
    const text = ev.type === 'moved' && ev.combat ? h('span', { class: 'combat-word ' + ev.combat }, words) : h('span', words);
    const row = h('div.entry', { 'data-no': no ?? '', title: ev.type === 'moved' ? `${ev.from} → ${ev.to}` : '' }, badge, text);
    if (no != null) {
      row.addEventListener('mouseenter', () => on.show && on.show(no));
      row.addEventListener('mouseleave', () => on.show && on.show(fixed));
      row.addEventListener('click', () => {
        fixed = fixed === no ? null : no;
        for (const r of el.querySelectorAll('.entry.hl')) r.classList.remove('hl');
        if (fixed != null) row.classList.add('hl');
        if (on.show) on.show(fixed);
      });
    }
    return row;
  }
  return {
    el,
    render(s) {
      if (s.log.length < shown) { clear(el); shown = 0; }
      if (s.log.length === shown) return;
      for (const old of el.querySelectorAll('.entry.fresh')) old.classList.remove('fresh');
      for (const ev of s.log.slice(shown)) {
        const row = line(ev);
        row.classList.add('fresh');
        el.prepend(row);
      }
      el.scrollTop = 0;
      shown = s.log.length;
    },
  };
}
