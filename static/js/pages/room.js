// A room and its game: seats, deployment, battle, result. One page for every phase
// (docs/protocol.md §3–§9).
import { h, clear, toast, fmtClock } from '../dom.js';
import { t, getLang, errorText, errorWithReason, seatName, rankName } from '../i18n.js';
import { api } from '../api.js';
import { live } from '../ws.js';
import { session } from '../session.js';
import { navigate, banner } from '../main.js';
import { createBoard, SEATS, STATIONS, TEAM, SEAT_COLOURS } from '../board.js';
import { optionsList } from '../options.js';
import { formationsDialog, saveFormation } from '../formations.js';

const BOTTOM_PREF = ['S', 'W', 'N', 'E'];

export function botName(level) {
  return getLang() === 'zh' ? `${t('bot')}（${t('bot_' + level)}）` : `${t('bot')} (${t('bot_' + level)})`;
}

export async function render(main, { name, args }) {
  const offs = [];
  const key = args[0];
  const st = {
    roomId: name === 'room' ? key : null,
    room: null, game: null, v: null, phase: null, view: null, deployments: {}, confirmed: [],
    clock: null, legal: {}, seats: null, you: { seats: [] }, presence: {}, escaped: {},
    selected: null, busy: false, chatTab: 'room', lastPath: [], log: [], result: null,
  };

  try { await session.ensure(); } catch (e) { toast(errorText(e), 'error'); }

  // ---------- layout
  const boardBox = h('div.board-wrap', { 'data-testid': 'board' });
  const overlay = h('div.overlay-msg', { hidden: true });
  boardBox.append(overlay);
  const board = createBoard(boardBox, {
    rankLabel: rankName,
    stationLabel: (k) => (k === 'hq' ? t('hq') : ''),
    pieceTitle: (stn, code) => `${stn}${code ? ' · ' + seatName(code[0]) + ' ' + rankName(code.slice(1)) : ''}`,
  });
  board.onClick(onBoardClick);

  const statusLine = h('div.status-line', { 'data-testid': 'status', 'aria-live': 'polite' });
  const subLine = h('div.small.muted', { 'data-testid': 'substatus' });
  const controls = h('div.controls');
  const phasePanel = h('section.panel.stack', statusLine, subLine, controls);
  const seatsPanel = h('section.panel');
  const logBox = h('div.log', { 'data-testid': 'log' });
  const chatLog = h('div.chat-log', { 'data-testid': 'chat-log', 'aria-live': 'polite' });
  const chatInput = h('input', { type: 'text', maxlength: 200, placeholder: t('chat_placeholder'), 'aria-label': t('chat') });
  const tabRoom = h('button.btn.small.active', { type: 'button', onclick: () => setTab('room') }, t('room_chat'));
  const tabTeam = h('button.btn.small', { type: 'button', onclick: () => setTab('team') }, t('team_chat'));
  function setTab(tab) {
    st.chatTab = tab;
    tabRoom.classList.toggle('active', tab === 'room');
    tabTeam.classList.toggle('active', tab === 'team');
  }
  const chatPanel = h('section.panel.chat',
    h('div.chat-tabs', tabRoom, tabTeam),
    chatLog,
    h('form', {
      onsubmit: async (ev) => {
        ev.preventDefault();
        const text = chatInput.value.trim();
        if (!text || !st.roomId) return;
        try {
          await live.send('chat', { room: st.roomId, text, team: st.chatTab === 'team' });
          chatInput.value = '';
        } catch (e) { toast(errorText(e), 'error'); }
      },
    }, chatInput, h('button.btn', { type: 'submit' }, t('say'))));
  const infoPanel = h('section.panel');
  const side = h('aside.side', phasePanel, seatsPanel, chatPanel, h('section.panel', h('h2', t('log')), logBox), infoPanel);
  main.append(h('div.game-layout', h('div', boardBox, h('p.small.muted', { style: { textAlign: 'center', margin: '6px 0 0' } }, t('keyboard_help'))), side));

  // ---------- helpers
  const mySeats = () => st.you.seats || [];
  const controls1 = (seat) => mySeats().includes(seat);
  const myTeam = () => (mySeats()[0] ? TEAM[mySeats()[0]] : null);
  const seatInfo = (seat) => (st.seats && st.seats[seat]) || (st.room && st.room.seats && st.room.seats[seat]) || null;
  const opts = () => (st.room && st.room.options) || (st.view && st.view.options) || {};
  const eliminated = () => new Set((st.view && st.view.eliminated) || []);
  const turn = () => (st.view && st.view.turn) || (st.clock && st.clock.phase === 'battle' ? st.clock.seat : null);

  function bottomSeat() {
    const mine = mySeats();
    for (const s of BOTTOM_PREF) if (mine.includes(s)) return mine.length === 2 ? (mine.includes('S') ? 'S' : mine.includes('W') ? 'W' : mine[0]) : s;
    return 'S';
  }

  function addLog(text) {
    st.log.push(text);
    logBox.append(h('div', text));
    logBox.scrollTop = logBox.scrollHeight;
  }
  function sysChat(text) {
    chatLog.append(h('div.sys', text));
    chatLog.scrollTop = chatLog.scrollHeight;
  }

  function boardPieces() {
    if (st.view && (st.phase === 'battle' || st.phase === 'finished')) return st.view.pieces || {};
    if (st.phase === 'deploying') {
      const p = {};
      for (const seat of SEATS) {
        const mine = st.deployments[seat];
        if (mine) {
          for (const [stn, rank] of Object.entries(mine.pieces || mine)) p[stn] = seat + rank;
        } else if (seatInfo(seat)) {
          for (const s of STATIONS.values()) if (s.seat === seat && s.kind !== 'camp') p[s.name] = seat + '?';
        }
      }
      return p;
    }
    return {};
  }

  // ---------- rendering
  function renderAll() {
    board.setView(bottomSeat());
    board.setEliminated([...eliminated()]);
    board.setFlags(flagStations());
    board.setPieces(boardPieces());
    board.setLastMove(st.lastPath);
    renderSelection();
    renderPlates();
    renderStatus();
    renderSeats();
    renderInfo();
  }

  function flagStations() {
    if (!st.view) return [];
    const out = [];
    for (const seat of st.view.flags_revealed || []) {
      for (const [stn, code] of Object.entries(st.view.pieces || {})) {
        if (code[0] === seat && (code[1] === 'F' || (code[1] === '?' && STATIONS.get(stn)?.kind === 'hq' && st.flagAt?.[seat] === stn))) out.push(stn);
      }
    }
    return out;
  }

  function renderSelection() {
    if (st.phase === 'deploying') {
      const mine = [];
      for (const seat of mySeats()) if (!st.confirmed.includes(seat) && st.deployments[seat]) mine.push(...Object.keys(st.deployments[seat].pieces || st.deployments[seat]));
      board.setSelectable(mine);
      board.setSelected(st.selected);
      board.setTargets([]);
    } else if (st.phase === 'battle' && myTurn()) {
      board.setSelectable(Object.keys(st.legal || {}));
      board.setSelected(st.selected);
      board.setTargets(st.selected ? (st.legal[st.selected] || []) : []);
    } else {
      board.setSelectable([]);
      board.setSelected(null);
      board.setTargets([]);
    }
  }

  function myTurn() {
    const tu = turn();
    return st.phase === 'battle' && tu && controls1(tu) && st.legal && Object.keys(st.legal).length > 0;
  }

  function remainingMs() {
    if (!st.clock || st.clock.deadline == null) return null;
    return st.clock.deadline - live.now();
  }

  function renderPlates() {
    const plates = {};
    const tu = turn();
    const elim = eliminated();
    const o = opts();
    for (const seat of SEATS) {
      const info = seatInfo(seat);
      const running = st.phase === 'battle' && tu === seat && !elim.has(seat);
      const rem = running ? remainingMs() : null;
      const skips = st.view && st.view.skips ? st.view.skips[seat] || 0 : 0;
      const online = st.presence[seat] ?? (info ? info.online : undefined);
      let sub = '';
      if (elim.has(seat)) sub = t('eliminated');
      else if (st.escaped[seat] || (info && info.escaped)) sub = t('elim_escaped');
      else if (st.phase === 'battle' || st.phase === 'finished') sub = t('skips', { n: skips, max: o.max_skips ?? 5 });
      else if (st.phase === 'deploying') sub = st.confirmed.includes(seat) ? '✓ ' + t('deployed') : t('phase_deploy') + '…';
      else if (info && info.ready) sub = '✓ ' + t('is_ready');
      plates[seat] = {
        title: seatName(seat) + (controls1(seat) ? ' · ' + t('you') : ''),
        name: info ? (info.bot ? botName(info.bot) : info.name) : t('empty_seat'),
        sub,
        clock: st.phase === 'battle' ? fmtClock(running ? rem : (o.move_seconds ?? 30) * 1000) : null,
        active: running,
        low: running && rem != null && rem < 10000,
        dead: elim.has(seat),
        online: info && !info.bot ? !!online : undefined,
        me: controls1(seat),
      };
    }
    board.setPlates(plates);
  }

  function renderStatus() {
    const o = opts();
    clear(controls);
    statusLine.className = 'status-line';
    overlay.hidden = true;
    if (!st.room && !st.phase) { statusLine.textContent = t('loading'); return; }
    const phase = st.phase || (st.room && st.room.phase) || 'waiting';
    if (phase === 'waiting') {
      statusLine.textContent = t('phase_waiting');
      subLine.textContent = t('start_when_ready');
      const seated = mySeats().length > 0;
      if (seated) {
        const ready = SEATS.some(s => controls1(s) && st.room.seats[s] && st.room.seats[s].ready);
        controls.append(h('button.btn.' + (ready ? 'danger' : 'green'), { 'data-testid': 'ready', onclick: () => act('ready', { ready: !ready }) }, ready ? t('not_ready') : t('ready')));
      }
      controls.append(h('button.btn', { onclick: leaveRoom }, t('leave_room')));
    } else if (phase === 'deploying') {
      const rem = remainingMs();
      const pending = mySeats().filter(s => !st.confirmed.includes(s));
      statusLine.textContent = t('phase_deploy') + (rem != null ? ' · ' + t('deploy_left', { s: Math.max(0, Math.ceil(rem / 1000)) }) : '');
      subLine.textContent = pending.length ? t('deploy_hint') : (mySeats().length ? t('waiting_others') : t('spectating'));
      for (const seat of pending) {
        const suffix = mySeats().length > 1 ? ' (' + seatName(seat) + ')' : '';
        controls.append(
          h('button.btn', { 'data-testid': 'randomize', onclick: () => act('randomize', { seat }) }, t('rerandom') + suffix),
          h('button.btn', { 'data-testid': 'load-formation', onclick: () => loadFormation(seat) }, t('load_formation') + suffix),
          h('button.btn', { 'data-testid': 'save-formation', onclick: () => saveFormation(seat, st.deployments[seat]) }, t('save_formation') + suffix),
          h('button.btn.primary', { 'data-testid': 'confirm', onclick: () => act('confirm', { seat }) }, t('confirm_deploy') + suffix));
      }
      if (st.swapError) controls.append(h('div.error-text', { 'data-testid': 'swap-error', style: { width: '100%' } }, st.swapError));
    } else if (phase === 'battle') {
      const tu = turn();
      document.title = (myTurn() ? '● ' + t('your_turn') + ' · ' : '') + t('site');
      if (myTurn()) {
        statusLine.textContent = t('your_turn') + (mySeats().length > 1 ? ` (${seatName(tu)})` : '');
        statusLine.classList.add('mine');
      } else {
        statusLine.textContent = tu ? t('turn_of', { seat: seatName(tu) }) : '';
      }
      subLine.textContent = t('step', { n: st.view ? st.view.steps : 0, max: o.max_steps ?? 300 });
      const live1 = mySeats().filter(s => !eliminated().has(s));
      if (live1.length) {
        const offer = st.view && st.view.draw_offer;
        if (offer && !controls1(offer)) {
          controls.append(h('div', { style: { width: '100%', fontWeight: 600 } }, t('draw_offered', { seat: seatName(offer) })),
            h('button.btn.green', { onclick: () => act('accept_draw') }, t('accept_draw')),
            h('button.btn', { onclick: () => act('decline_draw') }, t('decline_draw')));
        } else if (offer) {
          controls.append(h('div.muted', { style: { width: '100%' } }, t('draw_offered', { seat: seatName(offer) })));
        } else {
          controls.append(h('button.btn', { 'data-testid': 'offer-draw', onclick: () => act('offer_draw') }, t('offer_draw')));
        }
        controls.append(h('button.btn.danger', {
          'data-testid': 'surrender',
          onclick: () => { if (confirm(t('confirm_surrender'))) act('surrender'); },
        }, t('surrender')));
      } else if (!mySeats().length) {
        controls.append(h('span.tag', t('spectating')));
      }
    } else if (phase === 'finished') {
      renderResult();
    }
  }

  function renderResult() {
    const status = st.view && st.view.status;
    const team = myTeam();
    let big = t('game_over'), cls = '';
    if (status && status.state === 'won') {
      if (team) { big = status.winner === team ? t('you_won') : t('you_lost'); cls = status.winner === team ? 'win' : 'loss'; }
      else big = t('winner', { team: t('team_' + status.winner) });
    } else if (status && status.state === 'draw') big = t('draw');
    statusLine.textContent = t('game_over');
    subLine.textContent = status && status.reason ? t('reason_' + status.reason) : '';
    const box = h('div.result-box', { 'data-testid': 'result', style: { width: '100%' } },
      h('div.big.' + (cls || 'none'), big),
      h('div.small.muted', t('full_reveal')),
      st.points ? h('div', { 'data-testid': 'points' }, t('points_change') + ': ', h('b', st.points)) : null,
      h('div.row', { style: { justifyContent: 'center', marginTop: '8px' } },
        st.game != null ? h('a.btn.primary', { href: '#/replay/' + st.game, 'data-testid': 'replay-link' }, t('watch_replay')) : null,
        h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
    controls.append(box);
    overlay.hidden = false;
    overlay.textContent = big;
  }

  function renderSeats() {
    const r = st.room;
    const phase = st.phase || (r && r.phase);
    const host = r && r.you && r.you.host;
    const elim = eliminated();
    const tu = turn();
    const cards = SEATS.map((seat) => {
      const info = seatInfo(seat);
      const actions = [];
      if (phase === 'waiting' && r) {
        if (!info) {
          actions.push(h('button.btn.small', { 'data-testid': 'sit-' + seat, onclick: () => act('take_seat', { seat }) }, t('take_seat')));
          if (host) actions.push(h('button.btn.small', { 'data-testid': 'bot-' + seat, onclick: () => act('add_bot', { seat, level: 'standard' }) }, t('add_bot')));
        } else if (controls1(seat)) {
          actions.push(h('button.btn.small', { onclick: () => act('leave_seat', { seat }) }, t('leave_seat')));
        } else if (host && info.bot) {
          actions.push(h('button.btn.small', { onclick: () => act('remove_bot', { seat }) }, t('remove_bot')));
        } else if (host) {
          actions.push(h('button.btn.small.danger', { onclick: () => act('kick', { seat }) }, t('kick')));
        }
      }
      const online = st.presence[seat] ?? (info && info.online);
      const meta = [];
      meta.push(h('span', TEAM[seat] === 'NS' ? t('team_NS') : t('team_EW')));
      if (info && !info.bot) meta.push(' · ', h('span.presence' + (online ? '.on' : '')), online ? t('online') : t('offline'));
      if (phase === 'waiting' && info && info.ready) meta.push(' · ✓ ' + t('is_ready'));
      if (elim.has(seat)) meta.push(' · ' + t('eliminated'));
      return h('div', {
        class: 'seat-card' + (tu === seat && phase === 'battle' ? ' turn' : '') + (elim.has(seat) ? ' dead' : '') + (controls1(seat) ? ' me' : ''),
        'data-seat': seat,
      },
        h('span.swatch', { style: { background: SEAT_COLOURS[seat] } }),
        h('div', { style: { minWidth: 0 } },
          h('div.name', seatName(seat), ' · ', info ? (info.bot ? botName(info.bot) : info.name) : h('span.muted', t('empty_seat'))),
          h('div.meta', meta)),
        h('div.row', { style: { gap: '4px' } }, actions));
    });
    clear(seatsPanel, h('h2', t('seats'), r ? h('span.small.muted', { style: { fontWeight: 400, marginLeft: '8px' } }, `${t('spectators')} ${r.spectators || 0}`) : null), h('div.seat-list', cards));
  }

  function renderInfo() {
    const r = st.room;
    if (!r) { clear(infoPanel); return; }
    const kind = r.kind || 'casual';
    const parts = [h('h2', t('room'), ' ', h('span.tag', t(kind === 'casual' ? 'casual' : kind === 'practice' ? 'practice_mode' : kind === 'ranked' ? 'ranked_mode' : 'ranked_dual_mode')))];
    if (r.invite && kind === 'casual') {
      const link = location.origin + location.pathname + '#/join/' + r.invite;
      const inp = h('input', { type: 'text', readOnly: true, value: link, 'aria-label': t('invite_link'), 'data-testid': 'invite-link' });
      parts.push(h('div.small.muted', t('invite_link')), h('div.invite', inp, h('button.btn.small', {
        onclick: async () => { try { await navigator.clipboard.writeText(link); toast(t('copied')); } catch { inp.select(); } },
      }, t('copy'))));
    }
    parts.push(optionsList(r.options || {}));
    clear(infoPanel, ...parts);
  }

  // ---------- actions
  async function act(type, fields = {}) {
    if (!st.roomId) return;
    try {
      return await live.sendReliable(type, { room: st.roomId, ...fields });
    } catch (e) {
      toast(errorText(e), 'error');
      throw e;
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

  async function onBoardClick(stn) {
    if (!stn) { st.selected = null; renderSelection(); return; }
    if (st.phase === 'deploying') {
      const owner = STATIONS.get(stn).seat;
      if (!owner || !controls1(owner) || st.confirmed.includes(owner) || !st.deployments[owner]) { st.selected = null; renderSelection(); return; }
      if (!st.selected) { st.selected = stn; renderSelection(); return; }
      if (st.selected === stn) { st.selected = null; renderSelection(); return; }
      const a = st.selected;
      if (STATIONS.get(a).seat !== owner) { st.selected = stn; renderSelection(); return; }
      st.selected = null;
      renderSelection();
      try {
        await live.sendReliable('swap', { room: st.roomId, seat: owner, a, b: stn });
        st.swapError = null;
      } catch (e) {
        st.swapError = errorWithReason(e);
        toast(st.swapError, 'error');
      }
      renderStatus();
      return;
    }
    if (st.phase === 'battle' && myTurn()) {
      if (st.selected && (st.legal[st.selected] || []).includes(stn)) {
        const from = st.selected;
        const legal = st.legal;
        const v = st.v;
        st.selected = null;
        st.legal = {}; // one move per turn: nothing is selectable until the next update
        renderSelection();
        renderStatus();
        try {
          await live.sendReliable('move', { room: st.roomId, from, to: stn });
        } catch (e) {
          toast(errorText(e), 'error');
          if (st.v === v) { st.legal = legal; renderSelection(); renderStatus(); }
        }
        return;
      }
      st.selected = st.legal[stn] ? (st.selected === stn ? null : stn) : null;
      renderSelection();
    }
  }

  // ---------- server messages
  function mine(msg) {
    if (!msg.room) return false;
    if (st.roomId) return msg.room === st.roomId;
    return false;
  }

  function setSeatsFromRoom(r) {
    st.room = r;
    st.you = r.you || st.you;
    const order = ['waiting', 'deploying', 'battle', 'finished'];
    const before = st.phase;
    // Later phases come with the versioned updates (with their view); the room message only
    // tells us that a game started.
    if (r.phase && (!st.phase || st.phase === 'waiting') && order.indexOf(r.phase) >= order.indexOf(st.phase)) st.phase = r.phase;
    // A game just started under our eyes: ask for a snapshot (deployment, clock, version).
    if (before === 'waiting' && st.phase !== 'waiting') live.send('resync', { room: st.roomId }).catch(() => {});
    if (r.game != null) st.game = r.game;
    for (const s of SEATS) if (r.seats && r.seats[s]) st.presence[s] = r.seats[s].online;
  }

  offs.push(live.on('room', (msg) => {
    if (!st.roomId && joining) st.roomId = msg.room;
    if (!mine(msg)) return;
    setSeatsFromRoom(msg);
    renderAll();
  }));

  offs.push(live.on('snapshot', (msg) => {
    if (!mine(msg)) return;
    st.game = msg.game;
    st.v = msg.v;
    st.phase = msg.phase;
    st.seats = msg.seats;
    st.you = msg.you || st.you;
    st.view = msg.view;
    st.clock = msg.clock;
    st.legal = msg.legal_moves || {};
    st.confirmed = msg.confirmed || [];
    st.deployments = {};
    for (const [seat, d] of Object.entries(msg.deployments || {})) st.deployments[seat] = d;
    for (const s of SEATS) if (msg.seats && msg.seats[s]) { st.presence[s] = msg.seats[s].online; st.escaped[s] = msg.seats[s].escaped; }
    const lastMove = (msg.last_events || []).filter(e => e.type === 'moved').pop();
    if (lastMove) st.lastPath = lastMove.path;
    st.selected = null;
    if (st.phase === 'finished') fetchPoints();
    renderAll();
  }));

  offs.push(live.on('deployment', (msg) => {
    if (!mine(msg)) return;
    st.deployments[msg.seat] = { seat: msg.seat, pieces: msg.pieces };
    if (msg.confirmed && !st.confirmed.includes(msg.seat)) st.confirmed.push(msg.seat);
    renderAll();
  }));

  let updateChain = Promise.resolve();
  offs.push(live.on('update', (msg) => {
    if (!mine(msg)) return;
    updateChain = updateChain.then(() => applyUpdate(msg)).catch(e => console.error(e));
  }));

  async function applyUpdate(msg) {
    if (st.v != null && msg.from_v !== st.v) {
      if (msg.v <= st.v) return; // already have it
      resync();
      return;
    }
    const before = { ...(board.pieces || {}) };
    st.selected = null;
    board.setSelectable([]);
    board.setTargets([]);
    for (const ev of msg.events || []) {
      if (ev.type === 'moved') {
        const code = before[ev.from] || ev.seat + '?';
        await Promise.race([board.animateMove(ev.path || [ev.from, ev.to], code), new Promise(r => setTimeout(r, 3000))]);
        if (ev.combat) board.flash(ev.to, ev.combat, t(ev.combat));
        st.lastPath = ev.path || [ev.from, ev.to];
        delete before[ev.from];
        if (!ev.combat || ev.combat === 'attacker_won') before[ev.to] = code;
        else if (ev.combat === 'both_removed') delete before[ev.to];
        board.setPieces(before);
        board.setLastMove(st.lastPath);
      }
      describeEvent(ev);
    }
    st.v = msg.v;
    if (msg.view !== undefined) st.view = msg.view;
    if (msg.clock) st.clock = msg.clock;
    st.legal = msg.legal_moves || {};
    const phaseBefore = st.phase;
    if (msg.clock && msg.clock.phase) st.phase = msg.clock.phase === 'deploying' ? 'deploying' : msg.clock.phase;
    if (st.view && st.view.status && st.view.status.state !== 'ongoing') st.phase = 'finished';
    if (st.phase === 'finished' && phaseBefore !== 'finished') fetchPoints();
    renderAll();
  }

  function describeEvent(ev) {
    const s = ev.seat ? seatName(ev.seat) : '';
    switch (ev.type) {
      case 'moved': addLog(`${s}: ${ev.from} → ${ev.to}${ev.combat ? ' · ' + t(ev.combat) : ''}`); break;
      case 'skipped': addLog(t('skipped', { seat: s, n: ev.skips })); break;
      case 'flag_revealed': addLog(t('flag_revealed', { seat: s })); sysChat(t('flag_revealed', { seat: s })); break;
      case 'eliminated': addLog(t('seat_eliminated', { seat: s }) + ` (${t('elim_' + ev.reason)})`); sysChat(t('seat_eliminated', { seat: s })); break;
      case 'draw_offered': addLog(t('draw_offered', { seat: s })); break;
      case 'draw_declined': addLog(`${s}: ${t('decline_draw')}`); break;
      case 'deploy_confirmed': if (!st.confirmed.includes(ev.seat)) st.confirmed.push(ev.seat); addLog(`${s}: ${t('deployed')}`); break;
      case 'battle_started': st.phase = 'battle'; addLog(t('phase_battle')); break;
      case 'escaped': st.escaped[ev.seat] = true; addLog(`${s}: ${t('elim_escaped')}`); break;
      case 'game_over': {
        const stt = ev.status || {};
        addLog(t('game_over') + ' · ' + (stt.state === 'draw' ? t('draw') : t('winner', { team: t('team_' + stt.winner) })));
        break;
      }
      default: break;
    }
  }

  /** Ranked games: the points this game gave us, from our profile's recent games. */
  async function fetchPoints(attempt = 0) {
    if (st.game == null || !st.room || !(st.room.kind || '').startsWith('ranked')) return;
    const me = session.me;
    if (!me || me.guest) return;
    try {
      const p = await api('GET', '/api/profiles/' + encodeURIComponent(me.name));
      const g = (p.recent_games || []).find(x => x.game_id === st.game);
      if (g && g.points != null) {
        st.points = (g.points > 0 ? '+' : '') + g.points + (g.outcome ? ` (${t(g.outcome === 'win' ? 'win' : g.outcome === 'loss' ? 'loss' : g.outcome === 'draw' ? 'draw' : g.outcome === 'surrender' ? 'elim_surrendered' : 'elim_escaped')})` : '');
        renderStatus();
        return;
      }
    } catch { /* not critical */ }
    // The result is recorded right after the game ends; look again shortly.
    if (attempt < 5) setTimeout(() => fetchPoints(attempt + 1), 1000);
  }

  offs.push(live.on('presence', (msg) => {
    if (!mine(msg)) return;
    Object.assign(st.presence, msg.seats || {});
    renderPlates();
    renderSeats();
  }));

  offs.push(live.on('chat', (msg) => {
    if (!mine(msg)) return;
    chatLog.append(h('div', { class: 'msg' + (msg.team ? ' team' : '') },
      h('span.who', { style: { color: msg.seat ? SEAT_COLOURS[msg.seat] : '#444' } }, msg.from + ':'), msg.text));
    chatLog.scrollTop = chatLog.scrollHeight;
  }));

  offs.push(live.on('kicked', (msg) => { if (mine(msg)) { toast(t('kicked'), 'error'); navigate('/lobby'); } }));
  offs.push(live.on('room_closed', (msg) => { if (mine(msg)) { toast(t('room_closed')); navigate('/lobby'); } }));

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
    live.send('resync', st.v != null ? { room: st.roomId, v: st.v } : { room: st.roomId }).catch(() => {});
  }

  let joining = false;
  async function join() {
    joining = true;
    try {
      let fields;
      if (name === 'join') fields = { invite: key };
      else if (name === 'game') fields = { game: Number(key) };
      else fields = { room: st.roomId };
      const ack = await live.send('join_room', fields);
      if (ack.room && ack.room !== st.roomId) {
        st.roomId = ack.room;
        history.replaceState(null, '', '#/room/' + ack.room);
      }
    } catch (e) {
      clear(main, h('div.panel.empty', h('h2', t('error')), h('p', errorText(e)), h('a.btn', { href: '#/lobby' }, t('back_to_lobby'))));
    } finally { joining = false; }
  }

  // clock ticking
  const tick = setInterval(() => {
    if (st.phase === 'battle') renderPlates();
    if (st.phase === 'deploying' && st.clock) {
      const rem = remainingMs();
      if (rem != null) statusLine.textContent = t('phase_deploy') + ' · ' + t('deploy_left', { s: Math.max(0, Math.ceil(rem / 1000)) });
    }
  }, 500);
  offs.push(() => clearInterval(tick));

  const keyHandler = (ev) => {
    if (ev.key === 'Escape') { st.selected = null; renderSelection(); }
  };
  document.addEventListener('keydown', keyHandler);
  offs.push(() => document.removeEventListener('keydown', keyHandler));

  renderAll();
  await live.ready();
  await join();

  return () => { offs.forEach(f => f()); banner(''); };
}
