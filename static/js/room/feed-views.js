// The two append-only feeds of a room: the chat (room and team tabs, system lines) and the game
// log (one line per logged event). Each render appends the entries that are new in the state.
import { h, clear } from '../dom.js';
import { t, seatLine, getLang } from '../i18n.js';
import { quickPhrases } from '../quick-chat.js';
import { SEAT_COLOURS } from '../board.js';
import { moveWords, resultWords } from './words.js';
import * as S from './state.js';

/** Append `list[shown…]` to `box` with `line`, scrolled to the end; returns the new count. */
function appendNew(box, list, shown, line) {
  if (list.length < shown) { clear(box); shown = 0; }
  if (list.length === shown) return shown;
  for (const entry of list.slice(shown)) box.append(line(entry));
  box.scrollTop = box.scrollHeight;
  return list.length;
}

function chatLine(m, s) {
  if (m.sys) return h('div.sys', seatLine(m.sys, m.seat, S.whoIs(s, m.seat)));
  return h('div', { class: 'msg' + (m.team ? ' team' : '') },
    h('span.who', { style: { color: m.seat ? SEAT_COLOURS[m.seat] : '#444' } }, m.from + ':'), m.text);
}

/** The keys of the logged events told as "{seat} …" (our own seat as 你 / You). */
const SEAT_LINES = {
  flag_revealed: 'flag_revealed', draw_offered: 'draw_offered', draw_declined: 'draw_declined_by',
  draw_accepted: 'draw_accepted_by', draw_offer_expired: 'draw_offer_lapsed', deploy_confirmed: 'deploy_confirmed_by',
  escaped: 'escaped_by',
};

/** The text of a logged update event (state.log) for the viewer of the room state `s`. */
export function logText(ev, s) {
  const who = ev.seat ? S.whoIs(s, ev.seat) : null;
  if (SEAT_LINES[ev.type]) return seatLine(SEAT_LINES[ev.type], ev.seat, who);
  switch (ev.type) {
    case 'moved': return moveWords(ev);
    case 'skipped': return seatLine('skipped', ev.seat, who, { n: ev.skips });
    case 'eliminated': return seatLine('seat_eliminated', ev.seat, who) + ` (${t('elim_' + ev.reason)})`;
    case 'battle_started': return t('battle_begins');
    case 'game_over': {
      // The same words as the result box (from the final view, which this event comes with).
      const { big, reason } = resultWords(s);
      return t('game_over') + ' · ' + big + (reason ? ` (${reason})` : '');
    }
    default: return ev.type;
  }
}

/**
 * `on`: {tab(name), send(text) → Promise (resolves when the server took it), heard(lines): the
 * people's lines that came since the last render (not the ones there at the first)}.
 */
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
  // Quick chat: one tap sends a phrase as an ordinary chat line (to the room or the team, as chosen).
  const quick = h('div.quick-chat', { role: 'group', 'aria-label': t('quick_chat'), 'data-testid': 'quick-chat' },
    quickPhrases(getLang()).map(p => h('button.btn.small', { type: 'button', 'data-phrase': p, onclick: () => on.send(p) }, p)));
  const el = h('section.panel.chat', { 'data-testid': 'chat' },
    h('h2', t('chat')),
    log,
    quick,
    h('form', {
      onsubmit: async (ev) => {
        ev.preventDefault();
        const text = input.value.trim();
        if (text && await on.send(text)) input.value = '';
      },
    }, input, h('button.btn', { type: 'submit' }, t('say'))),
    sendTo);
  let shown = 0, first = true;
  return {
    el,
    input,
    render(s) {
      sendTo.hidden = S.isHiddenFront(s); // two sides, no team to talk to
      tabRoom.checked = s.chatTab === 'room';
      tabTeam.checked = s.chatTab === 'team';
      const before = shown;
      shown = appendNew(log, s.chat, shown, (m) => chatLine(m, s));
      const heard = first || shown < before ? [] : s.chat.slice(before, shown).filter(m => !m.sys);
      first = false;
      if (heard.length && on.heard) on.heard(heard);
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
  function line(ev, s) {
    const no = ev.type === 'moved' ? ev.no : null;
    const badge = no != null
      ? h('span.no', { style: { background: SEAT_COLOURS[ev.seat] } }, String(no))
      : h('span.no.plain', '·');
    const words = logText(ev, s);
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
        const row = line(ev, s);
        row.classList.add('fresh');
        el.prepend(row);
      }
      el.scrollTop = 0;
      shown = s.log.length;
    },
  };
}
