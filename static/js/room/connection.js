// The room page's socket: the lobby socket, or in cluster mode the socket of the node that plays
// the room (a `moved` answer to join_room is followed, see follow.js). Server messages go to the
// reducer; updates one at a time, after their moves are animated. When a node's socket goes down
// the room is looked for again; a reconnected socket joins and resyncs. `page`: {name, key, main,
// st, sock, closed, dispatch, layout}.
import { h, clear } from '../dom.js';
import { t, errorText } from '../i18n.js';
import { api } from '../api.js';
import { live, socketAt, dropSocket } from '../ws.js';
import { joinFollowing, locateRoom } from '../follow.js';
import { banner } from '../main.js';
import { updateFits, resyncFields } from './state.js';

/** Server messages for the room that go straight to the reducer (`update` waits for animations). */
const MESSAGES = ['room', 'snapshot', 'deployment', 'presence', 'spectators', 'chat', 'kicked', 'room_closed'];

export function createConnection(page) {
  let sockOffs = [];
  let updateChain = Promise.resolve();
  let rejoins = 0;
  let rejoinTimer = null;

  function attach(s) {
    if (s === page.sock && sockOffs.length) return;
    sockOffs.forEach(f => f());
    page.sock = s;
    sockOffs = MESSAGES.map(type => s.on(type, page.dispatch));
    sockOffs.push(s.on('update', (msg) => {
      updateChain = updateChain.then(async () => {
        if (updateFits(page.st, msg)) {
          page.dispatch({ type: 'ui/animating' });
          await page.layout.boardView.animate(msg.events);
        }
        page.dispatch(msg);
      }).catch(e => console.error(e));
    }));
    sockOffs.push(s.onStatus(async (status) => {
      if (status === 'down') {
        banner(t('reconnecting'));
        // a node's socket (closed 4009 "moved", or its node went away): ask where the room is
        // now and join there
        if (s !== live) { dropSocket(s); rejoinLater(); }
      }
      if (status === 'reconnected' && s === page.sock) {
        banner(t('reconnected'), 'ok');
        await join();
        resync();
      }
    }));
  }

  /**
   * Ask which node plays the room now (`GET /api/games/{id}/node`, or the room's before its game
   * starts) and join on that node's socket — through the lobby, which answers `moved` if need
   * be, when nobody says. Retried with the socket's back-off (0.5 s doubling to 8 s), at most 30
   * times.
   */
  function rejoinLater() {
    clearTimeout(rejoinTimer);
    rejoinTimer = setTimeout(rejoin, Math.min(500 * 2 ** rejoins, 8000));
  }
  async function rejoin() {
    if (page.closed || (page.sock === live && live.open)) return;
    try {
      const path = await locateRoom((url) => api('GET', url), { game: page.st.game, room: page.st.roomId });
      if (page.closed) return;
      await join({ quiet: true, path });
      rejoins = 0;
      banner(t('reconnected'), 'ok');
      resync();
    } catch {
      if (++rejoins < 30 && !page.closed) rejoinLater();
    }
  }

  function resync() {
    if (!page.st.roomId) return;
    page.sock.send('resync', resyncFields(page.st)).catch(() => {});
  }

  /** Join the room on the socket that plays it (see `joinRoom`). */
  function join(opts) {
    return joinRoom(page, attach, opts);
  }

  return {
    attach, join,
    /** Stop listening (and drop a node's socket). */
    close() {
      clearTimeout(rejoinTimer);
      sockOffs.forEach(f => f());
      if (page.sock !== live) dropSocket(page.sock);
    },
  };
}

/**
 * Join the room (by invite, game or room id) on the socket that plays it, `attach`ing the page to
 * each socket the join moves to. A failure replaces the page with the error (or, `quiet`, throws).
 */
async function joinRoom(page, attach, { quiet = false, path = null } = {}) {
  const { name, key, dispatch } = page;
  dispatch({ type: 'ui/joining', joining: true });
  try {
    let fields;
    if (name === 'join') fields = { invite: key };
    else if (name === 'game') fields = { game: Number(key) };
    else fields = { room: page.st.roomId };
    const { socket, ack } = await joinFollowing(live, socketAt, fields, {
      path,
      onSocket: (s) => { if (s !== page.sock) { const old = page.sock; attach(s); if (old !== live) dropSocket(old); } },
      timeoutMs: 10000,
    });
    if (socket !== page.sock) attach(socket);
    dispatch({ type: 'ui/joined', room: ack.room });
  } catch (e) {
    if (quiet) throw e;
    clear(page.main, h('div.panel.empty', h('h2', t('error')), h('p', errorText(e)), h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
  } finally { dispatch({ type: 'ui/joining', joining: false }); }
}
