// Replay viewer: every piece shown, step forward and back through a finished game.
import { h, clear, fmtDate } from '../dom.js';
import { t, seatName, rankName, errorText, botName, gameName, winnerName } from '../i18n.js';
import { get } from '../api.js';
import { createBoard, SEAT_COLOURS, boardOf } from '../board.js';
import { replayRecord, HF_TIMEOUT_LIMIT } from '../replay-engine.js';
import { optionsList } from '../options.js';
import { session } from '../session.js';
import { moveWords } from '../room/words.js';
import { withFallen } from '../room/state.js';

export async function render(main, { args, query }) {
  const id = args[0];
  let game;
  try {
    game = await get('/api/games/' + encodeURIComponent(id));
  } catch (e) {
    main.append(h('div.panel.empty', h('h2', t('error')), h('p', errorText(e)), h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
    return;
  }
  const players = {};
  for (const p of game.players || []) players[p.seat] = p;

  // Which game: the record says (records before Hidden Front are four-player ones).
  const variant = game.variant || (game.record && game.record.variant) || 'four_player';
  const hf = variant === 'hidden_front';
  const SEATS = boardOf(variant).seats;
  const boardBox = h('div.board-wrap', { 'data-testid': 'replay-board' });
  const board = createBoard(boardBox, {
    variant,
    rankLabel: rankName,
    stationLabel: (k) => (k === 'hq' ? t('hq') : ''),
    pieceTitle: (stn, code) => `${stn}${code ? ' · ' + seatName(code[0]) + ' ' + rankName(code.slice(1)) : ''}`,
  });
  // Hidden Front: a player of North sees its own side at the bottom, as in the game.
  const mine = session.me && (game.players || []).find(p => !p.bot && p.name === session.me.name);
  const bottom = query.get('seat') && SEATS.includes(query.get('seat')) ? query.get('seat') : hf && mine ? mine.seat : 'S';
  board.setView(bottom);

  if (!game.record) {
    // In progress: only public information.
    const pub = game.public || {};
    if (pub.view) board.setPieces(pub.view.pieces || {});
    main.append(h('div.game-layout', boardBox, h('aside.side', h('section.panel', h('h2', t('replay') + ' #' + id), h('p', t('in_progress')),
      h('a.btn', { href: '#/game/' + id }, t('spectate'))))));
    return;
  }

  const states = replayRecord({ variant, ...game.record });
  let idx = Number(query.get('step')) || 0;
  idx = Math.max(0, Math.min(states.length - 1, idx));
  let timer = null;

  const pos = h('span.pos', { 'data-testid': 'replay-pos' });
  const counters = h('div.small.muted', { 'data-testid': 'replay-counters', hidden: !hf });
  const noteBox = h('div.status-line', { 'data-testid': 'replay-note', 'aria-live': 'polite' });
  const playBtn = h('button.btn', { onclick: togglePlay, 'aria-label': t('play'), title: t('play') }, '▷');
  const bar = h('div.replay-bar',
    h('button.btn', { onclick: () => go(0), 'aria-label': t('first'), title: t('first') }, '|◀'),
    h('button.btn', { onclick: () => go(idx - 1), 'aria-label': t('prev'), title: t('prev'), 'data-testid': 'replay-prev' }, '◀'),
    pos,
    h('button.btn', { onclick: () => go(idx + 1), 'aria-label': t('next'), title: t('next'), 'data-testid': 'replay-next' }, '▶'),
    h('button.btn', { onclick: () => go(states.length - 1), 'aria-label': t('last'), title: t('last'), 'data-testid': 'replay-last' }, '▶|'),
    playBtn);
  bar.addEventListener('mousedown', (ev) => ev.preventDefault()); // no focus jump, no scroll
  const moveList = h('div.log', { style: { maxHeight: '320px', position: 'relative' } });

  function describe(n) {
    const s = n.seat ? seatName(n.seat) : '';
    switch (n.type) {
      // The replay shows every piece: name both ranks.
      case 'moved': return moveWords({
        seat: n.seat, to: n.to, path: n.path, combat: n.combat,
        attacker: { seat: n.seat, rank: n.piece ? n.piece.slice(1) : null, mine: false },
        defender: n.defender ? { seat: n.defender[0], rank: n.defender.slice(1), mine: false } : null,
      });
      case 'skipped': return t('skipped', { seat: s, n: n.skips });
      case 'eliminated': return t('seat_eliminated', { seat: s }) + ` (${t('elim_' + n.reason)})`;
      case 'flag_revealed': return t('flag_revealed', { seat: s });
      case 'draw_offered': return t('draw_offered', { seat: s });
      case 'draw_declined': return `${s}: ${t('decline_draw')}`;
      case 'draw_accepted': return `${s}: ${t('accept_draw')}`;
      case 'draw': return t('draw');
      case 'draw_offer_expired': return t('draw_offer_lapsed', { seat: s });
      default: return '';
    }
  }
  const rows = states.map((st, i) => {
    const text = i === 0 ? t('initial_position') : `${i}. ` + (st.notes.map(describe).filter(Boolean).join(' · ') || st.action.type);
    return h('div', { style: { cursor: 'pointer' }, onclick: () => go(i) }, text);
  });
  moveList.append(...rows);

  function go(i) {
    idx = Math.max(0, Math.min(states.length - 1, i));
    const s = states[idx];
    board.setEliminated(Object.keys(s.eliminated));
    // the end is the full reveal: the eliminated seats' pieces where they fell
    board.setPieces(s.over ? withFallen(s) : s.pieces);
    board.setLastMove(s.last || []);
    const flagSt = Object.entries(s.pieces).filter(([, c]) => c[1] === 'F' && s.flags.includes(c[0])).map(([k]) => k);
    board.setFlags(flagSt);
    const plates = {};
    for (const seat of SEATS) {
      const p = players[seat];
      plates[seat] = {
        title: seatName(seat), name: p ? (p.bot ? botName(p.bot) : p.name) : '',
        sub: s.eliminated[seat] ? t('eliminated') + ' · ' + t('elim_' + s.eliminated[seat])
          : t('skips', { n: s.skips[seat] || 0, max: hf ? HF_TIMEOUT_LIMIT : (game.options || {}).max_skips ?? 5 }),
        active: s.turn === seat, dead: !!s.eliminated[seat],
      };
    }
    board.setPlates(plates);
    pos.textContent = t('move_n', { n: idx, total: states.length - 1 });
    noteBox.textContent = idx === 0 ? t('initial_position') : s.notes.map(describe).filter(Boolean).join(' · ');
    if (hf) counters.textContent = t('hf_steps', { n: s.steps, q: s.quiet, max: 100 });
    rows.forEach((r, j) => { r.style.background = j === idx ? '#fff4d6' : ''; r.style.fontWeight = j === idx ? '700' : ''; });
    const row = rows[idx];
    if (row.offsetTop < moveList.scrollTop || row.offsetTop + row.offsetHeight > moveList.scrollTop + moveList.clientHeight) {
      moveList.scrollTop = row.offsetTop - moveList.clientHeight / 2;
    }
    history.replaceState(null, '', `#/replay/${id}?step=${idx}${bottom !== 'S' ? '&seat=' + bottom : ''}`);
  }
  function togglePlay() {
    if (timer) { clearInterval(timer); timer = null; playBtn.textContent = '▷'; return; }
    if (idx >= states.length - 1) go(0);
    playBtn.textContent = '■';
    timer = setInterval(() => { if (idx >= states.length - 1) togglePlay(); else go(idx + 1); }, 700);
  }

  const result = game.result || {};
  // Told from the viewer's side when the viewer played (their team), else from the winners'.
  const me = mine;
  // Hidden Front: the winner is a seat, and "our team" is our seat.
  const myTeam = me ? (hf ? me.seat : me.seat === 'N' || me.seat === 'S' ? 'NS' : 'EW') : null;
  const loser = hf ? (result.winner === 'S' ? 'N' : 'S') : result.winner === 'NS' ? 'EW' : 'NS';
  const resultText = result.state === 'won'
    ? (myTeam ? t((myTeam === result.winner ? 'you_won' : 'you_lost') + (hf ? '_hf' : '')) : t('winner', { team: winnerName(result.winner) }))
    : result.state === 'draw' ? t('draw') : t('in_progress');
  const sided = hf && result.state === 'won' && result.reason;
  const reasonText = !result.reason ? null
    : sided ? (myTeam ? t(`reason_${result.reason}_${myTeam === result.winner ? 'them' : 'us'}`) : t(`reason_${result.reason}_seat`, { seat: seatName(loser) }))
      : result.reason !== 'elimination' || result.state !== 'won' ? t('reason_' + result.reason)
        : myTeam ? t(myTeam === result.winner ? 'reason_elimination_them' : 'reason_elimination_us')
          : t('reason_elimination_team', { team: t('team_' + loser) });
  const playersBox = h('div.seat-list', SEATS.map(seat => {
    const p = players[seat] || {};
    return h('div.seat-card',
      h('span.swatch', { style: { background: SEAT_COLOURS[seat] } }),
      h('div', h('div.name', seatName(seat), ' · ', p.bot ? botName(p.bot) : p.name ? h('a', { href: '#/profile/' + encodeURIComponent(p.name) }, p.name) : '–'),
        h('div.meta', [p.surrendered ? t('elim_surrendered') : '', p.escaped ? t('elim_escaped') : ''].filter(Boolean).join(' · '))),
      h('span'));
  }));

  main.classList.add('wide');
  main.append(h('div.game-layout',
    h('div.board-col', boardBox),
    h('aside.side',
      h('section.panel.stack', { 'data-testid': 'replay-controls' }, bar, h('div.small.muted.kb-hint', t('replay_keys'))),
      h('section.panel.stack',
        h('h2', t('replay'), ' #', String(game.id ?? id), ' ', h('span.tag', t(game.kind === 'casual' ? 'casual' : game.kind === 'practice' ? 'practice_mode' : game.kind === 'ranked' ? 'ranked_mode' : game.kind === 'hf_ranked' ? 'hf_ranked' : 'ranked_dual_mode')),
          ' ', h('span.tag.game-tag', { 'data-testid': 'replay-game' }, gameName(variant))),
        h('div.status-line', { 'data-testid': 'replay-result' }, resultText, reasonText ? h('span.small.muted', ' · ' + reasonText) : null),
        h('div.small.muted', fmtDate(game.finished_at || game.created_at)),
        counters,
        noteBox),
      h('section.panel', h('h2', t('seats')), playersBox),
      h('section.panel', moveList),
      h('section.panel', h('h2', t('options')), optionsList(game.options || game.record.options || {}, variant)))));

  const keys = (ev) => {
    if (ev.target.closest('input, textarea, select')) return;
    if (ev.key === 'ArrowLeft') { ev.preventDefault(); go(idx - 1); }
    else if (ev.key === 'ArrowRight') { ev.preventDefault(); go(idx + 1); }
    else if (ev.key === 'Home') go(0);
    else if (ev.key === 'End') go(states.length - 1);
  };
  document.addEventListener('keydown', keys);
  go(idx);
  void clear;
  return () => { main.classList.remove('wide'); document.removeEventListener('keydown', keys); if (timer) clearInterval(timer); };
}
