// A room and its game: seats, deployment, battle, result. One page for every phase
// (docs/protocol.md §3–§9). Thin wiring: socket messages and clicks go through the pure reducer
// (room/state.js), the views (room/*-view.js) draw the new state, and the reducer's effects
// (send, toast, navigate, sound) are carried out here.
import { h, clear, toast } from '../dom.js';
import { t, errorText, errorWithReason, rankName } from '../i18n.js';
import { api } from '../api.js';
import { live, socketAt, dropSocket } from '../ws.js';
import { joinFollowing, locateRoom, nodePath } from '../follow.js';
import { session } from '../session.js';
import { navigate, banner } from '../main.js';
import { formationsDialog, saveFormation } from '../formations.js';
import { initialState, reduce, updateFits, resyncFields } from '../room/state.js';
import { createBoardView } from '../room/board-view.js';
import { createStatusView } from '../room/status-view.js';
import { createSeatsView } from '../room/seats-view.js';
import { createInfoView } from '../room/info-view.js';
import { createChatView, createLogView } from '../room/feed-views.js';
import { createCasualtiesView } from '../room/casualties-view.js';
import { sound } from '../sound.js';
import { MARKS, remainingMs, myTurn, variantOf } from '../room/state.js';

/** Server messages for the room that go straight to the reducer (`update` waits for animations). */
const MESSAGES = ['room', 'snapshot', 'deployment', 'presence', 'chat', 'kicked', 'room_closed'];

export async function render(main, { name, args, query }) {
  const offs = [];
  const key = args[0];
  let st = initialState(name === 'room' ? key : null);
  // The room's socket: the lobby socket, or in cluster mode the socket of the node that plays the
  // room (a `moved` answer to join_room is followed, see follow.js). A ranked game's page is opened
  // with `?node=` from `match_found`: its first join goes to that node's socket.
  let sock = live;
  const namedPath = nodePath(query && query.get('node'));
  let closed = false;

  try { await session.ensure(); } catch (e) { toast(errorText(e), 'error'); }

  // ---------- layout
  const boardBox = h('div.board-wrap', { 'data-testid': 'board' });
  const overlay = h('div.overlay-msg', { hidden: true });
  boardBox.append(overlay);
  const boardView = createBoardView(boardBox, {
    onClick: (station) => dispatch({ type: 'ui/click', station }),
    onMark: (station) => dispatch({ type: 'ui/mark_menu', station }),
  });
  const status = createStatusView(overlay, {
    act, leaveRoom, loadFormation, saveFormation: (seat) => saveFormation(seat, st.deployments[seat], variantOf(st)),
  });
  const seats = createSeatsView(act);
  const chat = createChatView({ tab: (tab) => dispatch({ type: 'ui/chat_tab', tab }), send: sendChat });
  const log = createLogView({
    show: (no) => {
      const ev = no == null ? null : st.log.find(e => e.no === no);
      boardView.board.setHighlight(no, ev ? { no, seat: ev.seat, path: ev.path || [ev.from, ev.to] } : null);
    },
  });
  const info = createInfoView();
  const casualties = createCasualtiesView();
  const logPanel = h('section.panel', { 'data-testid': 'log-panel' }, h('h2', t('log')), log.el);
  const side = h('aside.side', status.el, info.el, logPanel, casualties.el, seats.el, chat.el);
  const soundBtn = h('button.btn.small', { type: 'button', 'data-testid': 'sound', onclick: () => { sound.on = !sound.on; soundLabel(); if (sound.on) sound.play('turn'); } });
  const soundLabel = () => { soundBtn.textContent = sound.on ? t('sound_on') : t('sound_off'); soundBtn.setAttribute('aria-pressed', String(sound.on)); };
  soundLabel();
  const zoomBtn = h('button.btn.small.zoom', { type: 'button', 'data-testid': 'zoom', onclick: () => {
    const z = boardBox.classList.toggle('zoomed');
    zoomBtn.textContent = z ? t('unzoom') : t('zoom');
  } }, t('zoom'));
  const tools = h('div.board-tools', zoomBtn, soundBtn, h('span.small.muted.kb-hint', t('keyboard_help') + ' · ' + t('mark_hint')));
  main.classList.add('wide');
  offs.push(() => main.classList.remove('wide'));
  // The tools sit above the side panels: in view beside the board, and under it on a phone.
  side.prepend(tools);
  main.append(h('div.game-layout', h('div.board-col', boardBox), side));

  // ---------- marks (标记): a menu next to the piece; kept in the browser per game
  let menu = null;
  const marksKey = (game) => 'siguo_marks_' + game;
  let marksLoadedFor = null;
  function drawMarkMenu() {
    if (menu && menu.station === st.markMenu) return;
    if (menu) { menu.el.remove(); menu = null; }
    if (!st.markMenu) return;
    const station = st.markMenu;
    const pick = (mark) => dispatch({ type: 'ui/mark', station, mark });
    const el = h('div.mark-menu', { 'data-testid': 'mark-menu', role: 'menu' },
      h('div.title', t('mark_title')),
      MARKS.map(m => h('button.btn.small', { type: 'button', 'data-mark': m, title: m === '?' ? '?' : rankName(m), onclick: () => pick(m) }, m === '?' ? '?' : rankName(m))),
      h('button.btn.small', { type: 'button', 'data-mark': '', onclick: () => pick(null) }, t('mark_clear')));
    document.body.append(el);
    const [x, y] = boardView.board.clientPos(station);
    el.style.left = Math.max(4, Math.min(innerWidth - 254, x - 125)) + 'px';
    el.style.top = Math.max(56, Math.min(innerHeight - el.offsetHeight - 4, y + 18)) + 'px';
    menu = { station, el };
  }
  offs.push(() => { if (menu) menu.el.remove(); });
  function loadMarks() {
    if (st.game == null || st.phase !== 'battle' || !st.view || marksLoadedFor === st.game) return;
    marksLoadedFor = st.game;
    let marks = null;
    try { marks = JSON.parse(localStorage.getItem(marksKey(st.game)) || 'null'); } catch { /* none */ }
    if (marks) dispatch({ type: 'ui/marks_loaded', game: st.game, marks });
  }


  // ---------- state → views, effects → world
  let drawnPhase = null;
  function draw() {
    const now = sock.now();
    boardView.render(st, now);
    status.render(st, now);
    seats.render(st);
    info.render(st);
    chat.render(st);
    log.render(st);
    casualties.render(st);
    drawMarkMenu();
    const phase = st.phase || (st.room && st.room.phase);
    if (phase !== drawnPhase) {
      // A new phase: old error toasts are moot; the invite matters only while waiting.
      if (drawnPhase) toast('');
      drawnPhase = phase;
      if (phase === 'waiting') side.insertBefore(info.el, status.el.nextSibling);
      else side.append(info.el);
    }
  }

  function dispatch(msg) {
    st = reduce(st, msg);
    draw();
    for (const e of st.effects) run(e);
    loadMarks();
  }

  function run(e) {
    switch (e.type) {
      case 'send': sock.send(e.msg, e.fields).catch(() => {}); break;
      case 'swap':
        sock.sendReliable('swap', { room: st.roomId, seat: e.seat, a: e.a, b: e.b })
          .then(() => dispatch({ type: 'ui/swap_done' }), (error) => dispatch({ type: 'ui/swap_failed', error }));
        break;
      case 'move':
        sock.sendReliable('move', { room: st.roomId, from: e.from, to: e.to })
          .catch((error) => dispatch({ type: 'ui/move_failed', error, legal: e.legal, v: e.v }));
        break;
      case 'toast': toast(e.key ? t(e.key) : e.reason ? errorWithReason(e.error) : errorText(e.error), e.kind); break;
      case 'navigate': navigate(e.to); break;
      case 'replace_url': history.replaceState(null, '', e.hash); break;
      case 'sound': sound.play(e.name); break;
      case 'announce': boardView.announce(t(e.key)); break;
      case 'your_turn': boardView.announce(t('your_turn')); sound.play('turn'); break;
      case 'save_marks':
        if (st.game != null) {
          try {
            if (Object.keys(st.marks).length) localStorage.setItem(marksKey(st.game), JSON.stringify(st.marks));
            else localStorage.removeItem(marksKey(st.game));
          } catch { /* storage full or off */ }
        }
        break;
      default: console.error('unknown effect', e);
    }
  }

  // ---------- actions
  async function act(type, fields = {}) {
    if (!st.roomId) return;
    try {
      return await sock.sendReliable(type, { room: st.roomId, ...fields });
    } catch (error) {
      dispatch({ type: 'ui/action_failed', error });
      throw error;
    }
  }

  async function sendChat(text) {
    if (!st.roomId) return false;
    try {
      await sock.send('chat', { room: st.roomId, text, team: st.chatTab === 'team' });
      return true;
    } catch (error) {
      dispatch({ type: 'ui/action_failed', error });
      return false;
    }
  }

  async function leaveRoom() {
    try { await sock.send('leave_room', { room: st.roomId }); } catch { /* ignore */ }
    navigate('/lobby');
  }

  async function loadFormation(seat) {
    const f = await formationsDialog(variantOf(st));
    if (!f) return;
    try { await act('load_formation', { seat, formation: f.id }); } catch { /* toasted */ }
  }

  // ---------- server messages (from the room's socket; moved with it)
  let sockOffs = [];
  let updateChain = Promise.resolve();
  function attach(s) {
    if (s === sock && sockOffs.length) return;
    sockOffs.forEach(f => f());
    sock = s;
    sockOffs = MESSAGES.map(type => s.on(type, dispatch));
    // Updates one at a time: the moves of one are animated before it is applied.
    sockOffs.push(s.on('update', (msg) => {
      updateChain = updateChain.then(async () => {
        if (updateFits(st, msg)) {
          dispatch({ type: 'ui/animating' });
          await boardView.animate(msg.events);
        }
        dispatch(msg);
      }).catch(e => console.error(e));
    }));
    sockOffs.push(s.onStatus(async (status) => {
      if (status === 'down') {
        banner(t('reconnecting'));
        // a node's socket (closed 4009 "moved", or its node went away): ask where the room is
        // now and join there
        if (s !== live) { dropSocket(s); rejoinLater(); }
      }
      if (status === 'reconnected' && s === sock) {
        banner(t('reconnected'), 'ok');
        await join();
        resync();
      }
    }));
  }
  attach(live);
  offs.push(() => { sockOffs.forEach(f => f()); if (sock !== live) dropSocket(sock); });

  /**
   * The room's node socket went down: ask which node plays the room now (`GET
   * /api/games/{id}/node`, or the room's before its game starts) and join on that node's socket —
   * through the lobby, which answers `moved` if need be, when nobody says. Retried with the
   * socket's back-off (0.5 s doubling to 8 s), at most 30 times.
   */
  let rejoins = 0;
  let rejoinTimer = null;
  function rejoinLater() {
    clearTimeout(rejoinTimer);
    rejoinTimer = setTimeout(rejoin, Math.min(500 * 2 ** rejoins, 8000));
  }
  offs.push(() => clearTimeout(rejoinTimer));
  async function rejoin() {
    if (closed || (sock === live && live.open)) return;
    try {
      const path = await locateRoom((url) => api('GET', url), { game: st.game, room: st.roomId });
      if (closed) return;
      await join({ quiet: true, path });
      rejoins = 0;
      banner(t('reconnected'), 'ok');
      resync();
    } catch {
      if (++rejoins < 30 && !closed) rejoinLater();
    }
  }

  function resync() {
    if (!st.roomId) return;
    sock.send('resync', resyncFields(st)).catch(() => {});
  }

  async function join({ quiet = false, path = null } = {}) {
    dispatch({ type: 'ui/joining', joining: true });
    try {
      let fields;
      if (name === 'join') fields = { invite: key };
      else if (name === 'game') fields = { game: Number(key) };
      else fields = { room: st.roomId };
      const { socket, ack } = await joinFollowing(live, socketAt, fields, {
        path,
        onSocket: (s) => { if (s !== sock) { const old = sock; attach(s); if (old !== live) dropSocket(old); } },
        timeoutMs: 10000,
      });
      if (socket !== sock) attach(socket);
      dispatch({ type: 'ui/joined', room: ack.room });
    } catch (e) {
      if (quiet) throw e;
      clear(main, h('div.panel.empty', h('h2', t('error')), h('p', errorText(e)), h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
    } finally { dispatch({ type: 'ui/joining', joining: false }); }
  }

  // clock ticking
  let lowWarned = null;
  const tick = setInterval(() => {
    const now = sock.now();
    if (st.phase === 'battle') boardView.renderPlates(st, now);
    // Low time on our own move: one short sound per turn.
    const rem = remainingMs(st, now);
    if (myTurn(st) && rem != null && rem < 10000 && lowWarned !== st.v) { lowWarned = st.v; sound.play('low'); }
    if (st.phase === 'deploying' && st.clock) status.tick(st, now);
  }, 500);
  offs.push(() => clearInterval(tick));

  const keyHandler = (ev) => {
    if (ev.key === 'Escape') dispatch({ type: 'ui/click', station: null });
  };
  document.addEventListener('keydown', keyHandler);
  offs.push(() => document.removeEventListener('keydown', keyHandler));

  draw();
  await live.ready();
  await join({ path: namedPath });
  // The node named by match_found served this join; a reload asks afresh.
  if (namedPath && !closed && location.hash.includes('?')) history.replaceState(null, '', '#/room/' + (st.roomId || key));

  return () => { closed = true; offs.forEach(f => f()); banner(''); };
}
