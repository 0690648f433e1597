// A room and its game: seats, deployment, battle, result. One page for every phase
// (docs/protocol.md §3–§9). Thin wiring: socket messages and clicks go through the pure reducer
// (room/state.js), the views (room/*-view.js, laid out by room/page-layout.js) draw the new
// state, and the reducer's effects (send, toast, navigate, sound) are carried out by
// room/page-actions.js; room/connection.js keeps the room's socket.
import { h, toast } from '../dom.js';
import { errorText, t } from '../i18n.js';
import { live } from '../ws.js';
import { nodePath } from '../follow.js';
import { session } from '../session.js';
import { banner } from '../main.js';
import { saveFormation } from '../formations.js';
import { initialState, reduce, remainingMs, myTurn, variantOf } from '../room/state.js';
import { createRoomLayout } from '../room/page-layout.js';
import { runEffect, act, sendChat, leaveRoom, loadFormation } from '../room/page-actions.js';
import { createConnection } from '../room/connection.js';
import { loadMarks } from '../room/marks-menu.js';
import { sound } from '../sound.js';

export async function render(main, { name, args, query }) {
  const key = args[0];
  // What the page's parts share: the state, the room's socket (see room/connection.js), the views.
  const page = { name, key, main, st: initialState(name === 'room' ? key : null), sock: live, closed: false, dispatch };
  // A ranked game's page is opened with `?node=` from `match_found`: its first join goes there.
  const namedPath = nodePath(query && query.get('node'));

  // A logged-out visitor opened a game to watch (the lobby's 观战, `?watch=1`): no guest is made,
  // the socket is a visitor's and only watches. Anyone else opening a room becomes a guest.
  const watching = !session.me && query && query.get('watch') === '1';
  if (!watching) {
    try { await session.ensure(); } catch (e) { toast(errorText(e), 'error'); }
  }

  main.classList.add('wide');
  page.layout = createRoomLayout(main, {
    dispatch,
    state: () => page.st,
    act: (type, fields) => act(page, type, fields),
    leaveRoom: () => leaveRoom(page),
    loadFormation: (seat) => loadFormation(page, seat),
    saveFormation: (seat) => saveFormation(seat, page.st.deployments[seat], variantOf(page.st)),
    sendChat: (text) => sendChat(page, text),
  });

  // A visitor is told how it watches, and how to play
  if (watching) {
    main.prepend(h('p.small.muted.visitor-note', { 'data-testid': 'visitor-note' },
      t('watching_as_visitor'), ' ', h('a', { href: '#/login' }, t('login'))));
  }

  // Marks are loaded from the browser once per game, when its battle view is known.
  let marksLoadedFor = null;
  function dispatch(msg) {
    page.st = reduce(page.st, msg);
    page.layout.draw(page.st, page.sock.now());
    for (const e of page.st.effects) runEffect(page, e);
    const s = page.st;
    if (s.game == null || s.phase !== 'battle' || !s.view || marksLoadedFor === s.game) return;
    marksLoadedFor = s.game;
    const marks = loadMarks(s.game);
    if (marks) dispatch({ type: 'ui/marks_loaded', game: s.game, marks });
  }

  const connection = createConnection(page);
  connection.attach(live);
  const stopTicking = tickClocks(page);
  const keyHandler = (ev) => {
    if (ev.key === 'Escape') dispatch({ type: 'ui/click', station: null });
  };
  document.addEventListener('keydown', keyHandler);

  page.layout.draw(page.st, page.sock.now());
  await live.ready();
  await connection.join({ path: namedPath });
  // The node named by match_found served this join; a reload asks afresh.
  if (namedPath && !page.closed && location.hash.includes('?')) history.replaceState(null, '', '#/room/' + (page.st.roomId || key));

  return () => {
    page.closed = true;
    main.classList.remove('wide');
    page.layout.markMenu.remove();
    connection.close();
    stopTicking();
    document.removeEventListener('keydown', keyHandler);
    banner('');
  };
}

/** The clocks tick every 500 ms; low time on our own move: one short sound per turn. */
function tickClocks(page) {
  let lowWarned = null;
  const tick = setInterval(() => {
    const { st } = page;
    const now = page.sock.now();
    if (st.phase === 'battle') page.layout.boardView.renderPlates(st, now);
    const rem = remainingMs(st, now);
    if (myTurn(st) && rem != null && rem < 10000 && lowWarned !== st.v) { lowWarned = st.v; sound.play('low'); }
    if (st.phase === 'deploying' && st.clock) page.layout.status.tick(st, now);
  }, 500);
  return () => clearInterval(tick);
}
