// The phase panel: what is going on (waiting, deployment countdown, whose turn, result) and the
// buttons of the phase; the result also shows over the board.
import { h, clear } from '../dom.js';
import { t, seatName, seatLine, errorWithReason } from '../i18n.js';
import { resultWords } from './words.js';
import * as S from './state.js';
import { ratingWithChange, titleBadge } from '../ladder.js';

const INPUTS = ['room', 'phase', 'you', 'clock', 'view', 'confirmed', 'deployments', 'swapError', 'points', 'game', 'legal', 'offeredAt', 'seats'];

const OUTCOME_TEXT = { win: 'win', loss: 'loss', draw: 'draw', surrender: 'elim_surrendered' };

/** "+3 (胜)": the points a ranked game gave, with its outcome. */
export function pointsText({ points, outcome }) {
  return (points > 0 ? '+' : '') + points + (outcome ? ` (${t(OUTCOME_TEXT[outcome] || 'elim_escaped')})` : '');
}

/**
 * `overlay`: the message box over the board. `on`: {act(type, fields), leaveRoom(),
 * loadFormation(seat), saveFormation(seat)}.
 */
export function createStatusView(overlay, on) {
  const statusLine = h('div.status-line', { 'data-testid': 'status', 'aria-live': 'polite' });
  const subLine = h('div.small.muted', { 'data-testid': 'substatus' });
  // Hidden Front: both sides' timeouts under the step counter.
  const timeoutsLine = h('div.small.muted', { 'data-testid': 'timeouts', hidden: true });
  const controls = h('div.controls');
  const el = h('section.panel.stack', statusLine, subLine, timeoutsLine, controls);
  let last = null;
  let pulseTimer = null;

  const deployLine = (s, now) => {
    const rem = S.remainingMs(s, now);
    return t('phase_deploy') + (rem != null ? ' · ' + t('deploy_left', { s: Math.max(0, Math.ceil(rem / 1000)) }) : '');
  };

  function waiting(s) {
    statusLine.textContent = t('phase_waiting');
    subLine.textContent = t(S.isHiddenFront(s) ? 'start_when_ready_hf' : 'start_when_ready');
    if (S.mySeats(s).length > 0) {
      const ready = S.seatsOf(s).some(seat => S.controls(s, seat) && s.room.seats[seat] && s.room.seats[seat].ready);
      controls.append(h('button.btn.' + (ready ? 'danger' : 'green'), { 'data-testid': 'ready', onclick: () => on.act('ready', { ready: !ready }) }, ready ? t('not_ready') : t('ready')));
    }
    controls.append(h('button.btn', { onclick: on.leaveRoom }, t('leave_room')));
  }

  function deploying(s, now) {
    const mine = S.mySeats(s);
    const pending = mine.filter(seat => !s.confirmed.includes(seat));
    statusLine.textContent = deployLine(s, now);
    subLine.textContent = pending.length ? t('deploy_hint') : (mine.length ? t('waiting_others') : t('spectating'));
    for (const seat of pending) {
      const suffix = mine.length > 1 ? ' (' + seatName(seat) + ')' : '';
      controls.append(
        h('button.btn', { 'data-testid': 'randomize', onclick: () => on.act('randomize', { seat }) }, t('rerandom') + suffix),
        h('button.btn', { 'data-testid': 'load-formation', onclick: () => on.loadFormation(seat) }, t('load_formation') + suffix),
        h('button.btn', { 'data-testid': 'save-formation', onclick: () => on.saveFormation(seat) }, t('save_formation') + suffix),
        h('button.btn.primary', { 'data-testid': 'confirm', onclick: () => on.act('confirm', { seat }) }, t('confirm_deploy') + suffix));
    }
    if (s.swapError) controls.append(h('div.error-text', { 'data-testid': 'swap-error', style: { width: '100%' } }, errorWithReason(s.swapError)));
  }

  function battle(s) {
    const tu = S.turn(s);
    const mine = S.mySeats(s);
    const myTurn = S.myTurn(s);
    document.title = (myTurn ? '● ' + t('your_turn') + ' · ' : '') + t('site');
    if (myTurn) {
      statusLine.textContent = t('your_turn') + (mine.length > 1 ? ` (${seatName(tu)})` : '');
      statusLine.classList.add('mine');
    } else if (tu && S.controls(s, tu)) {
      // Our move is on its way: the turn passes with the next update.
      statusLine.textContent = t('moved_waiting');
    } else {
      statusLine.textContent = tu ? t('turn_of', { seat: seatName(tu) }) : '';
    }
    counters(s);
    const elim = S.eliminated(s);
    if (mine.some(seat => !elim.has(seat))) {
      const offer = s.view && s.view.draw_offer;
      const wait = S.drawOfferWait(s, mine[0]);
      if (offer) {
        // Another seat's offer is answered in the prompt over the board (draw-prompt.js).
        controls.append(h('div.muted', { 'data-testid': 'draw-line', style: { width: '100%' } }, seatLine('draw_offered', offer, S.whoIs(s, offer))));
      } else if (wait > 0) {
        controls.append(h('button.btn', { 'data-testid': 'offer-draw', disabled: true, title: t('draw_again_in', { n: wait }) }, t('offer_draw')),
          h('span.small.muted', { 'data-testid': 'draw-wait' }, t('draw_again_in', { n: wait })));
      } else {
        controls.append(h('button.btn', { 'data-testid': 'offer-draw', onclick: () => on.act('offer_draw') }, t('offer_draw')));
      }
      if (s.room && (s.room.kind === 'casual' || s.room.kind === 'practice')) {
        const auto = mine.some(seat => S.autoOf(s, seat));
        controls.append(h('button.btn' + (auto ? '.primary' : ''), {
          'data-testid': 'auto-play', 'aria-pressed': String(auto), onclick: () => on.act('auto_play', { on: !auto }),
        }, t(auto ? 'auto_play_off' : 'auto_play_on')));
      } else if (s.room) {
        controls.append(h('span.small.muted', { 'data-testid': 'ranked-rules' }, t('ranked_no_auto')));
      }
      controls.append(h('button.btn.danger', {
        'data-testid': 'surrender',
        onclick: () => { if (confirm(t('confirm_surrender'))) on.act('surrender'); },
      }, t('surrender')));
    } else if (!mine.length) {
      controls.append(h('span.tag', t('spectating')));
    } else {
      // out of the game (surrendered, say) while the partner plays on: watch it to the end, or
      // leave (where only bots are left, leaving ends the game)
      controls.append(h('div.muted', { 'data-testid': 'out-line', style: { width: '100%' } }, t('out_watch_on')),
        h('button.btn', { 'data-testid': 'leave-game', onclick: on.leaveRoom }, t('leave_room')));
    }
  }

  /** The step counter: of the step limit, or (Hidden Front) with the steps since the last combat and the timeouts. */
  function counters(s) {
    if (!S.isHiddenFront(s)) {
      subLine.textContent = t('step', { n: s.view ? s.view.steps : 0, max: S.options(s).max_steps ?? 300 });
      return;
    }
    const c = S.hfCounters(s);
    subLine.textContent = t('hf_steps', { n: c.steps, q: c.quiet, max: c.limit });
    timeoutsLine.hidden = false;
    timeoutsLine.textContent = t('hf_timeouts', { s: c.timeouts.S, n: c.timeouts.N, max: c.maxTimeouts });
  }

  /** 再来一局: ask (or, as the host, start with those who asked); who asked so far. */
  function rematchRow(s) {
    const asked = S.rematchSeats(s);
    if (!asked) return null;
    const mine = S.mySeats(s);
    const iAsked = mine.length && mine.every(seat => asked.includes(seat));
    const host = s.room && s.room.you && s.room.you.host;
    return h('div.row', { style: { justifyContent: 'center', marginTop: '8px' }, 'data-testid': 'rematch-row' },
      mine.length ? h('button.btn.primary', { 'data-testid': 'rematch', disabled: !!iAsked, onclick: () => on.act('rematch') },
        t(iAsked ? 'rematch_asked' : 'rematch')) : null,
      host && iAsked && mine.length ? h('button.btn', { 'data-testid': 'rematch-start', onclick: () => on.act('rematch', { start: true }) }, t('rematch_start')) : null,
      asked.length ? h('span.small.muted', { 'data-testid': 'rematch-seats' }, t('rematch_seats', { seats: asked.map(seatName).join(' ') })) : null);
  }

  function finished(s) {
    const { big, cls, reason } = resultWords(s);
    statusLine.textContent = t('game_over');
    // The reason is named once: in the result box.
    subLine.textContent = '';
    controls.append(h('div.result-box', { 'data-testid': 'result', style: { width: '100%' } },
      h('div.big.' + cls, big),
      reason ? h('div', { 'data-testid': 'result-reason' }, reason) : null,
      h('div.small.muted', t('full_reveal')),
      s.points && s.points.rating ? h('div', { 'data-testid': 'new-rating' }, t('rating') + ': ', h('b', ratingWithChange(s.points.rating, s.points.ratingChange)),
        ` (${t(OUTCOME_TEXT[s.points.outcome] || 'elim_escaped')})`, titleBadge(s.points.rating.title))
        : s.points ? h('div', { 'data-testid': 'points' }, t('points_change') + ': ', h('b', pointsText(s.points))) : null,
      rematchRow(s),
      h('div.row', { style: { justifyContent: 'center', marginTop: '8px' } },
        s.game != null ? h('a.btn.primary', { href: '#/replay/' + s.game, 'data-testid': 'replay-link' }, t('watch_replay')) : null,
        h('a.btn', { href: '#/lobby' }, t('back_to_lobby')))));
    overlay.hidden = false;
    overlay.textContent = big;
  }

  return {
    el,
    render(s, now) {
      if (!S.changed(last, s, INPUTS)) return;
      last = s;
      clear(controls);
      statusLine.className = 'status-line';
      timeoutsLine.hidden = true;
      overlay.hidden = true;
      if (!s.room && !s.phase) { statusLine.textContent = t('loading'); return; }
      const phase = S.shownPhase(s);
      if (phase === 'waiting') waiting(s);
      else if (phase === 'deploying') deploying(s, now);
      else if (phase === 'battle') battle(s);
      else if (phase === 'finished') finished(s);
    },
    /** Draw the eye to the phase for a moment (a notice: 轮到你走棋). */
    pulse() {
      el.classList.remove('pulse');
      void el.getBoundingClientRect();
      el.classList.add('pulse');
      clearTimeout(pulseTimer);
      pulseTimer = setTimeout(() => el.classList.remove('pulse'), 1600);
    },
    /** The deployment countdown, every half second. */
    tick(s, now) {
      if (S.remainingMs(s, now) != null) statusLine.textContent = deployLine(s, now);
    },
  };
}
