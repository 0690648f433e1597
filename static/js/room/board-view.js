// The room's board: pieces, selection and name plates drawn from the room state, and the
// animation of an update's moves (docs/protocol.md §4) before its state is applied.
import { fmtClock } from '../dom.js';
import { t, seatName, rankName, botName } from '../i18n.js';
import { createBoard } from '../board.js';
import * as S from './state.js';
import { combatWords } from './words.js';

const PIECES = ['view', 'phase', 'deployments', 'seats', 'room', 'you', 'lastPath', 'recent', 'marks'];

/** One character for a mark on a piece's back. */
export function markLabel(m) {
  return m === '?' ? '?' : rankName(m).slice(0, 1);
}
const SELECTION = ['phase', 'you', 'confirmed', 'deployments', 'legal', 'selected', 'view', 'clock'];
const PLATES = ['seats', 'room', 'phase', 'view', 'clock', 'presence', 'escaped', 'confirmed', 'you'];

const NOTE = {
  eliminated: () => t('eliminated'),
  escaped: () => t('elim_escaped'),
  skips: (p) => t('skips', { n: p.skips, max: p.maxSkips }),
  deployed: () => '✓ ' + t('deployed'),
  deploying: () => t('phase_deploy') + '…',
  ready: () => '✓ ' + t('is_ready'),
};

export function createBoardView(container, { onClick, onMark }) {
  const board = createBoard(container, {
    rankLabel: rankName,
    stationLabel: (k) => (k === 'hq' ? t('hq') : ''),
    pieceTitle: (stn, code) => `${stn}${code ? ' · ' + seatName(code[0]) + ' ' + rankName(code.slice(1)) : ''}`,
  });
  board.onClick(onClick);
  board.onMark(onMark);
  let last = null;
  let viewer = null; // the state the words of a combat are told for
  let announceTimer = null;

  function renderPlates(s, now) {
    const plates = {};
    for (const [seat, p] of Object.entries(S.plates(s, now))) {
      const info = p.info;
      plates[seat] = {
        title: seatName(seat) + (p.me ? ' · ' + t('you') : ''),
        name: info ? (info.bot ? botName(info.bot) : info.name) : t('empty_seat'),
        sub: p.note ? NOTE[p.note](p) : '',
        clock: p.clockMs === null ? null : fmtClock(p.clockMs),
        active: p.running,
        low: p.low,
        dead: p.dead,
        online: p.online,
        me: p.me,
      };
    }
    board.setPlates(plates);
  }

  function renderSelection(s) {
    const sel = S.selection(s);
    board.setSelectable(sel.selectable);
    board.setSelected(sel.selected);
    board.setTargets(sel.targets);
  }

  return {
    board,
    renderPlates,
    /** Draw what changed since the last call. */
    render(s, now) {
      if (S.changed(last, s, PIECES)) {
        board.setVariant(S.variantOf(s));
        board.setView(S.bottomSeat(s));
        board.setEliminated([...S.eliminated(s)]);
        board.setFlags(S.flagStations(s));
        board.setPieces(S.boardPieces(s));
        board.setLastMove(s.lastPath);
        board.setRecent(S.recentMoves(s));
        const marks = {};
        for (const [stn, m] of Object.entries(s.marks || {})) marks[stn] = markLabel(m);
        board.setMarks(marks);
      }
      if (S.changed(last, s, SELECTION)) renderSelection(s);
      if (S.changed(last, s, PLATES)) renderPlates(s, now);
      last = s;
      viewer = s;
    },
    /**
     * Say something for a moment ("对战开始", "轮到你走棋") without hiding the board: its border
     * glows (the words are in the status line and the log; `data-announce` holds them too).
     */
    announce(text) {
      container.classList.remove('announcing');
      void container.getBoundingClientRect(); // restart the glow's animation
      container.classList.add('announcing');
      container.dataset.announce = text;
      clearTimeout(announceTimer);
      announceTimer = setTimeout(() => { container.classList.remove('announcing'); delete container.dataset.announce; }, 1600);
    },
    /** Move the pieces of an update's `moved` events along their paths, one after the other. */
    async animate(events) {
      const pieces = { ...(board.pieces || {}) };
      board.setSelectable([]);
      board.setTargets([]);
      for (const ev of events || []) {
        if (ev.type !== 'moved') continue;
        const code = pieces[ev.from] || ev.seat + '?';
        const path = ev.path || [ev.from, ev.to];
        await Promise.race([board.animateMove(path, code), new Promise(r => setTimeout(r, 3000))]);
        if (ev.combat) {
          const mine = (c) => c && viewer && S.controls(viewer, c[0]);
          const who = (c, seat) => ({ seat: (c && c[0]) || seat, rank: c && c[1] !== '?' ? c.slice(1) : null, mine: mine(c) });
          const defender = pieces[ev.to];
          board.flash(ev.to, ev.combat, combatWords({ combat: ev.combat, attacker: who(code, ev.seat), defender: who(defender, defender && defender[0]) }));
        }
        delete pieces[ev.from];
        if (!ev.combat || ev.combat === 'attacker_won') pieces[ev.to] = code;
        else if (ev.combat === 'both_removed') delete pieces[ev.to];
        board.setPieces(pieces);
        board.setLastMove(path);
      }
    },
  };
}
