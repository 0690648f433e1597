// A room and its game: seats, deployment, battle, result. One page for every phase
// (docs/protocol.md §3–§9). Thin wiring: socket messages and clicks go through the pure reducer
// (room/state.js), the views (room/*-view.js) draw the new state, and the reducer's effects
// (send, toast, navigate, fetch the points) are carried out here.
import { h, clear, toast } from '../dom.js';
import { t, errorText, errorWithReason } from '../i18n.js';
import { api } from '../api.js';
import { live } from '../ws.js';
import { session } from '../session.js';
import { navigate, banner } from '../main.js';
import { formationsDialog, saveFormation } from '../formations.js';
import { initialState, reduce, updateFits, resyncFields, pointsWanted } from '../room/state.js';
import { createBoardView } from '../room/board-view.js';
import { createStatusView } from '../room/status-view.js';
import { createSeatsView } from '../room/seats-view.js';
import { createInfoView } from '../room/info-view.js';
import { createChatView, createLogView } from '../room/feed-views.js';

/** Server messages for the room that go straight to the reducer (`update` waits for animations). */
const MESSAGES = ['room', 'snapshot', 'deployment', 'presence', 'chat', 'kicked', 'room_closed'];

export async function render(main, { name, args }) {
  const offs = [];
  const key = args[0];
  let st = initialState(name === 'room' ? key : null);

  try { await session.ensure(); } catch (e) { toast(errorText(e), 'error'); }

  // ---------- layout
  const boardBox = h('div.board-wrap', { 'data-testid': 'board' });
  const overlay = h('div.overlay-msg', { hidden: true });
  boardBox.append(overlay);
  const boardView = createBoardView(boardBox, { onClick: (station) => dispatch({ type: 'ui/click', station }) });
  const status = createStatusView(overlay, {
    act, leaveRoom, loadFormation, saveFormation: (seat) => saveFormation(seat, st.deployments[seat]),
  });
  const seats = createSeatsView(act);
  const chat = createChatView({ tab: (tab) => dispatch({ type: 'ui/chat_tab', tab }), send: sendChat });
  const log = createLogView();
  const info = createInfoView();
  const side = h('aside.side', status.el, seats.el, chat.el, h('section.panel', h('h2', t('log')), log.el), info.el);
  main.append(h('div.game-layout', h('div', boardBox, h('p.small.muted', { style: { textAlign: 'center', margin: '6px 0 0' } }, t('keyboard_help'))), side));

  // ---------- state → views, effects → world
  function draw() {
    const now = live.now();
    boardView.render(st, now);
    status.render(st, now);
    seats.render(st);
    info.render(st);
    chat.render(st);
    log.render(st);
  }

  function dispatch(msg) {
    st = reduce(st, msg);
    draw();
    for (const e of st.effects) run(e);
  }

  function run(e) {
    switch (e.type) {
      case 'send': live.send(e.msg, e.fields).catch(() => {}); break;
      case 'swap':
        live.sendReliable('swap', { room: st.roomId, seat: e.seat, a: e.a, b: e.b })
          .then(() => dispatch({ type: 'ui/swap_done' }), (error) => dispatch({ type: 'ui/swap_failed', error }));
        break;
      case 'move':
        live.sendReliable('move', { room: st.roomId, from: e.from, to: e.to })
          .catch((error) => dispatch({ type: 'ui/move_failed', error, legal: e.legal, v: e.v }));
        break;
      case 'fetch_points': fetchPoints(); break;
      case 'toast': toast(e.key ? t(e.key) : e.reason ? errorWithReason(e.error) : errorText(e.error), e.kind); break;
      case 'navigate': navigate(e.to); break;
      case 'replace_url': history.replaceState(null, '', e.hash); break;
      default: console.error('unknown effect', e);
    }
  }

  // ---------- actions
  async function act(type, fields = {}) {
    if (!st.roomId) return;
    try {
      return await live.sendReliable(type, { room: st.roomId, ...fields });
    } catch (error) {
      dispatch({ type: 'ui/action_failed', error });
      throw error;
    }
  }

  async function sendChat(text) {
    if (!st.roomId) return false;
    try {
      await live.send('chat', { room: st.roomId, text, team: st.chatTab === 'team' });
      return true;
    } catch (error) {
      dispatch({ type: 'ui/action_failed', error });
      return false;
    }
  }

  async function leaveRoom() {
    try { await live.send('leave_room', { room: st.roomId }); } catch { /* ignore */ }
    navigate('/lobby');
  }

  async function loadFormation(seat) {
    const f = await formationsDialog();
    if (!f) return;
    try { await act('load_formation', { seat, formation: f.id }); } catch { /* toasted */ }
  }

  /** Ranked games: the points this game gave us, from our profile's recent games. */
  async function fetchPoints(attempt = 0) {
    if (!pointsWanted(st)) return;
    const me = session.me;
    if (!me || me.guest) return;
    try {
      const p = await api('GET', '/api/profiles/' + encodeURIComponent(me.name));
      const g = (p.recent_games || []).find(x => x.game_id === st.game);
      if (g && g.points != null) {
        dispatch({ type: 'ui/points', points: g.points, outcome: g.outcome });
        return;
      }
    } catch { /* not critical */ }
    // The result is recorded right after the game ends; look again shortly.
    if (attempt < 5) setTimeout(() => fetchPoints(attempt + 1), 1000);
  }

  // ---------- server messages
  for (const type of MESSAGES) offs.push(live.on(type, dispatch));

  // Updates one at a time: the moves of one are animated before it is applied.
  let updateChain = Promise.resolve();
  offs.push(live.on('update', (msg) => {
    updateChain = updateChain.then(async () => {
      if (updateFits(st, msg)) {
        dispatch({ type: 'ui/animating' });
        await boardView.animate(msg.events);
      }
      dispatch(msg);
    }).catch(e => console.error(e));
  }));

  offs.push(live.onStatus(async (s) => {
    if (s === 'down') banner(t('reconnecting'));
    if (s === 'reconnected') {
      banner(t('reconnected'), 'ok');
      await join();
      resync();
    }
  }));

  function resync() {
    if (!st.roomId) return;
    live.send('resync', resyncFields(st)).catch(() => {});
  }

  async function join() {
    dispatch({ type: 'ui/joining', joining: true });
    try {
      let fields;
      if (name === 'join') fields = { invite: key };
      else if (name === 'game') fields = { game: Number(key) };
      else fields = { room: st.roomId };
      const ack = await live.send('join_room', fields);
      dispatch({ type: 'ui/joined', room: ack.room });
    } catch (e) {
      clear(main, h('div.panel.empty', h('h2', t('error')), h('p', errorText(e)), h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
    } finally { dispatch({ type: 'ui/joining', joining: false }); }
  }

  // clock ticking
  const tick = setInterval(() => {
    const now = live.now();
    if (st.phase === 'battle') boardView.renderPlates(st, now);
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
  await join();

  return () => { offs.forEach(f => f()); banner(''); };
}
