// What the room page does in the world: the reducer's effects carried out (send, swap or move with
// their answers, toast, navigate, sound, announcements, marks kept) and the actions of its buttons
// (room actions, chat, leave, load a formation). `page`: {st (the
// current state), sock (the room's socket), dispatch(msg), layout}.
import { toast } from '../dom.js';
import { t, errorText, errorWithReason } from '../i18n.js';
import { navigate } from '../main.js';
import { formationsDialog } from '../formations.js';
import { sound } from '../sound.js';
import { variantOf } from './state.js';
import { saveMarks } from './marks-menu.js';

export function runEffect(page, e) {
  const { st, sock, dispatch } = page;
  const board = page.layout.boardView;
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
    case 'announce': board.announce(t(e.key)); page.layout.status.pulse(); break;
    case 'your_turn':
      board.announce(t('your_turn'));
      page.layout.status.pulse();
      sound.play('turn');
      // a short buzz on a phone (ignored where there is no vibrator or no tap yet)
      if (sound.on && navigator.vibrate) navigator.vibrate(60);
      break;
    case 'save_marks': if (st.game != null) saveMarks(st.game, st.marks); break;
    default: console.error('unknown effect', e);
  }
}

/** A room action (`ready`, `sit`, …); a refusal is dispatched (and thrown). */
export async function act(page, type, fields = {}) {
  if (!page.st.roomId) return;
  try {
    return await page.sock.sendReliable(type, { room: page.st.roomId, ...fields });
  } catch (error) {
    page.dispatch({ type: 'ui/action_failed', error });
    throw error;
  }
}

/** Send a chat line to the room or the team (the chat tab); true if it was sent. */
export async function sendChat(page, text) {
  if (!page.st.roomId) return false;
  try {
    await page.sock.send('chat', { room: page.st.roomId, text, team: page.st.chatTab === 'team' });
    return true;
  } catch (error) {
    page.dispatch({ type: 'ui/action_failed', error });
    return false;
  }
}

export async function leaveRoom(page) {
  try { await page.sock.send('leave_room', { room: page.st.roomId }); } catch { /* ignore */ }
  navigate('/lobby');
}

export async function loadFormation(page, seat) {
  const f = await formationsDialog(variantOf(page.st));
  if (!f) return;
  try { await act(page, 'load_formation', { seat, formation: f.id }); } catch { /* toasted */ }
}
