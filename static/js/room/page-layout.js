// The room page's layout: the board with its overlay and tools (zoom, sound), and beside it the
// panels (status, room info, log, casualties, seats, chat); `draw(state, now)` renders every view
// from the state. `on`: {dispatch(msg), state() → the current state, act, leaveRoom,
// loadFormation, saveFormation, sendChat}.
import { h, toast } from '../dom.js';
import { t } from '../i18n.js';
import { sound } from '../sound.js';
import { createBoardView } from './board-view.js';
import { createStatusView } from './status-view.js';
import { createSeatsView } from './seats-view.js';
import { createInfoView } from './info-view.js';
import { createChatView, createLogView } from './feed-views.js';
import { createCasualtiesView } from './casualties-view.js';
import { createMarkMenu } from './marks-menu.js';
import { createDrawPrompt } from './draw-prompt.js';

export function createRoomLayout(main, on) {
  const { dispatch } = on;
  const boardBox = h('div.board-wrap', { 'data-testid': 'board' });
  const overlay = h('div.overlay-msg', { hidden: true });
  boardBox.append(overlay);
  const boardView = createBoardView(boardBox, {
    onClick: (station) => dispatch({ type: 'ui/click', station }),
    onMark: (station) => dispatch({ type: 'ui/mark_menu', station }),
  });
  const status = createStatusView(overlay, on);
  const drawPrompt = createDrawPrompt(boardBox, (type) => on.act(type));
  const seats = createSeatsView(on.act);
  const chat = createChatView({
    tab: (tab) => dispatch({ type: 'ui/chat_tab', tab }),
    send: on.sendChat,
    // a line from a seat shows by its plate for a moment; one the chat panel is out of sight for
    // counts as unread on the chat button under the board
    heard: (lines) => {
      for (const m of lines) if (m.seat) boardView.board.say(m.seat, m.text);
      if (!chatInView) chatJump.setUnread(chatJump.unread + lines.length);
    },
  });
  const log = createLogView({
    show: (no) => {
      const ev = no == null ? null : on.state().log.find(e => e.no === no);
      boardView.board.setHighlight(no, ev ? { no, seat: ev.seat, path: ev.path || [ev.from, ev.to] } : null);
    },
  });
  const info = createInfoView();
  const casualties = createCasualtiesView();
  const markMenu = createMarkMenu({
    pick: (station, mark) => dispatch({ type: 'ui/mark', station, mark }),
    clientPos: (station) => boardView.board.clientPos(station),
  });
  const logPanel = h('section.panel', { 'data-testid': 'log-panel' }, h('h2', t('log')), log.el);
  const side = h('aside.side', status.el, info.el, logPanel, casualties.el, seats.el, chat.el);
  // The tools sit above the side panels: in view beside the board, and right under it on a phone.
  const chatJump = chatButton(chat);
  let chatInView = false;
  if (typeof IntersectionObserver === 'function') {
    new IntersectionObserver((entries) => {
      chatInView = entries.some(e => e.isIntersecting);
      if (chatInView) chatJump.setUnread(0);
    }, { threshold: 0.5 }).observe(chat.el);
  }
  side.prepend(boardTools(boardBox, chatJump.el));
  main.append(h('div.game-layout', h('div.board-col', boardBox), side));

  let drawnPhase = null;
  return {
    boardView, status, markMenu,
    draw(s, now) {
      for (const view of [boardView, status]) view.render(s, now);
      for (const view of [seats, info, chat, log, casualties, markMenu, drawPrompt]) view.render(s);
      const phase = s.phase || (s.room && s.room.phase);
      logPanel.hidden = phase === 'waiting' || !phase || !s.log.length;
      if (phase === drawnPhase) return;
      // A new phase: old error toasts are moot; the invite matters only while waiting.
      if (drawnPhase) toast('');
      drawnPhase = phase;
      // Waiting: the seats (坐下 / 加电脑) and the invite come first, on the first screen; the log
      // has nothing to say yet. Playing: the status, then the log of the last moves.
      const waiting = phase === 'waiting' || !phase;
      if (waiting) side.insertBefore(seats.el, status.el.nextSibling);
      else side.insertBefore(seats.el, chat.el);
      if (waiting) side.insertBefore(info.el, seats.el.nextSibling);
      else side.append(info.el);
    },
  };
}

/** 聊天 (2): the unread lines, one tap from the chat (scrolled to, its input focused). */
function chatButton(chat) {
  const badge = h('span.badge', { 'data-testid': 'chat-unread', hidden: true });
  const el = h('button.btn.small.chat-jump', {
    type: 'button', 'data-testid': 'chat-jump',
    onclick: () => {
      chat.el.scrollIntoView({ block: 'end' });
      chat.input.focus({ preventScroll: true });
      api.setUnread(0);
    },
  }, t('chat'), badge);
  const api = {
    el, unread: 0,
    setUnread(n) {
      api.unread = n;
      badge.hidden = n === 0;
      badge.textContent = n > 99 ? '99+' : String(n);
      el.classList.toggle('has-unread', n > 0);
    },
  };
  return api;
}

/** Zoom (the board wider than the screen on a phone), the chat button and the sound switch. */
function boardTools(boardBox, chatJump) {
  const soundBtn = h('button.btn.small', { type: 'button', 'data-testid': 'sound', onclick: () => { sound.on = !sound.on; soundLabel(); if (sound.on) sound.play('turn'); } });
  const soundLabel = () => { soundBtn.textContent = sound.on ? t('sound_on') : t('sound_off'); soundBtn.setAttribute('aria-pressed', String(sound.on)); };
  soundLabel();
  const zoomBtn = h('button.btn.small.zoom', { type: 'button', 'data-testid': 'zoom', onclick: () => {
    const z = boardBox.classList.toggle('zoomed');
    zoomBtn.textContent = z ? t('unzoom') : t('zoom');
    // Zoomed in, the view opens on our own side (the bottom, in the middle), from where the
    // board scrolls either way.
    if (z) {
      boardBox.scrollLeft = (boardBox.scrollWidth - boardBox.clientWidth) / 2;
      boardBox.scrollTop = boardBox.scrollHeight;
    }
  } }, t('zoom'));
  return h('div.board-tools', zoomBtn, chatJump, soundBtn, h('span.small.muted.kb-hint', t('keyboard_help') + ' · ' + t('mark_hint')));
}
