// Lobby: the game to play (四国军棋 or 两人军棋), play cards (practice, ranked queues, create
// room, join by code) and the public rooms of both games.
import { h, clear, toast } from '../dom.js';
import { t, errorText, seatName, gameName } from '../i18n.js';
import { get } from '../api.js';
import { live } from '../ws.js';
import { session } from '../session.js';
import { navigate } from '../main.js';
import { SEAT_COLOURS, boardOf, VARIANTS } from '../board.js';
import { queue, waitedText } from '../queue.js';
import { optionsForm, optionsSummary } from '../options.js';
import { LADDERS, LADDER_GAME, ladderOf, titleOf, onTitles, titleBadge } from '../ladder.js';

export async function render(main) {
  const offs = [];
  const me = session.me;

  // --- the game: kept in the browser; the practice and room cards follow it
  let game = localStorage.getItem('siguo_game');
  if (!VARIANTS.includes(game)) game = 'four_player';
  const gameButtons = VARIANTS.map(v => h('button.btn.game-choice', {
    type: 'button', 'data-testid': 'game-' + v, 'data-variant': v, onclick: () => pickGame(v),
  }, gameName(v)));
  const gameDesc = h('p.muted.small', { 'data-testid': 'game-desc' });
  const rulesLink = h('a.small', { 'data-testid': 'rules-link' }, t('rules_link'));
  const gameCard = h('section.panel.play-card.game-card', h('h2', t('choose_game'), rulesLink), h('div.game-switch', { role: 'group' }, gameButtons), gameDesc);

  // --- play cards
  let practiceOpts = optionsForm({}, game);
  const practiceOptsBox = h('div');
  const practiceDesc = h('p.muted.small');
  const practiceLevel = h('select', { name: 'level' }, ['standard', 'greedy', 'random'].map(l => h('option', { value: l }, t('bot_' + l))));
  // Hidden Front: play South (moves first) or North.
  const practiceSeat = h('select', { name: 'seat', 'data-testid': 'practice-seat' }, ['S', 'N'].map(x => h('option', { value: x }, seatName(x))));
  const practiceSeatField = h('label.field', h('span', t('your_side')), practiceSeat);
  const practiceBtn = h('button.btn.primary.big', { 'data-testid': 'practice', onclick: startPractice }, t('practice'));
  async function startPractice() {
    practiceBtn.disabled = true;
    try {
      await session.ensure();
      const ack = await live.send('start_practice', { options: practiceOpts.value(), level: practiceLevel.value, seat: game === 'hidden_front' ? practiceSeat.value : 'S', variant: game });
      navigate('/room/' + ack.room);
    } catch (e) {
      toast(errorText(e), 'error');
    } finally { practiceBtn.disabled = false; }
  }

  // Ranked play needs an account: a guest (or a visitor) is offered to register, not a button
  // that then refuses them.
  const mayQueue = !!(me && !me.guest);
  const queueCards = LADDERS.map((ladder) => {
    if (!mayQueue) {
      return h('section.panel.play-card', { 'data-game': LADDER_GAME[ladder], 'data-testid': 'ranked-card-' + ladder },
        h('h2', t(ladder), h('a.small', { href: '#/leaderboard/' + ladder }, t('leaderboard'))),
        h('p.muted.small', t(ladder + '_desc')),
        h('div.register-ranked', { 'data-testid': 'ranked-register' },
          h('span', t('ranked_register')),
          h('div.row', h('a.btn.blue', { href: '#/register' }, t('ranked_register_btn')),
            me ? null : h('a.small', { href: '#/login' }, t('ranked_login')))));
    }
    const status = h('div.queue-status', { 'data-testid': 'queue-status-' + ladder });
    const btn = h('button.btn.blue', { 'data-testid': 'queue-' + ladder });
    const draw = () => {
      const q = queue.state;
      if (q && q.ladder === ladder) {
        clear(status, h('span.spinner'), t('waiting', { s: waitedText(q.since) }),
          q.waiting ? h('span.small.muted', { style: { fontWeight: 400 } }, t('in_queue', { n: q.waiting })) : null);
        btn.textContent = t('leave_queue');
        btn.className = 'btn danger';
        btn.disabled = false;
      } else {
        clear(status);
        btn.textContent = t('join_queue');
        btn.className = 'btn blue';
        btn.disabled = !!q;
      }
    };
    btn.onclick = async () => {
      if (!session.me || session.me.guest) { toast(t('queue_guest'), 'error'); return; }
      try {
        if (queue.state && queue.state.ladder === ladder) await queue.leave();
        else await queue.join(ladder);
      } catch (e) { toast(errorText(e), 'error'); }
      draw();
    };
    offs.push(queue.onChange(draw));
    const tick = setInterval(draw, 1000);
    offs.push(() => clearInterval(tick));
    draw();
    // Each ladder is one game's: its card shows with that game.
    return h('section.panel.play-card', { 'data-game': LADDER_GAME[ladder] },
      h('h2', t(ladder), h('a.small', { href: '#/leaderboard/' + ladder }, t('leaderboard'))),
      h('p.muted.small', t(ladder + '_desc')),
      h('div.row', btn, status));
  });

  const codeInput = h('input', { type: 'text', placeholder: t('invite_code'), 'aria-label': t('invite_code'), maxlength: 32, style: { flex: 1, minWidth: 0 } });
  const joinForm = h('form.row', {
    onsubmit: (ev) => { ev.preventDefault(); const c = codeInput.value.trim(); if (c) navigate('/join/' + encodeURIComponent(c)); },
  }, codeInput, h('button.btn', { type: 'submit' }, t('join')));

  // Games in progress where we hold a seat (from the socket's hello): resume after a reload.
  const resumeBox = h('section.panel.play-card', { hidden: true, 'data-testid': 'resume' });
  if (me) {
    live.ready().then(() => {
      const rooms = (live.hello && live.hello.rooms) || [];
      if (!rooms.length) return;
      resumeBox.hidden = false;
      clear(resumeBox, h('h2', t('my_games'), h('span.tag', t('in_progress'))),
        ...rooms.map(r => h('div.row', { style: { marginTop: '6px' } },
          h('span.grow', `#${r.game ?? r.room} · ${t('phase_' + (r.phase === 'deploying' ? 'deploy' : r.phase))} · ${(r.seats || []).map(seatName).join('+')}`),
          h('a.btn.small.primary', { href: '#/room/' + r.room }, t('resume')))));
    });
  }

  const left = h('div.stack',
    resumeBox,
    gameCard,
    h('section.panel.play-card',
      h('h2', t('practice')),
      practiceDesc,
      practiceBtn,
      h('details', { style: { marginTop: '10px' } }, h('summary.small', t('options')),
        h('div.stack', { style: { marginTop: '8px' } }, h('label.field', h('span', t('bot_level')), practiceLevel), practiceSeatField, practiceOptsBox))),
    ...queueCards,
    h('section.panel.play-card',
      h('h2', t('create_room')),
      h('button.btn.green', { 'data-testid': 'create-room', onclick: () => createRoomDialog() }, t('create_room')),
      h('p.muted.small', t('join_by_code')),
      joinForm),
  );

  function pickGame(v) {
    game = v;
    try { localStorage.setItem('siguo_game', v); } catch { /* storage off */ }
    for (const b of gameButtons) {
      const on = b.dataset.variant === v;
      b.classList.toggle('primary', on);
      b.setAttribute('aria-pressed', String(on));
    }
    gameDesc.textContent = t('game_' + v + '_desc');
    rulesLink.href = '#/rules/' + v;
    practiceDesc.textContent = t(v === 'hidden_front' ? 'practice_desc_hf' : 'practice_desc');
    practiceOpts = optionsForm({}, v);
    clear(practiceOptsBox, practiceOpts.el);
    for (const c of queueCards) c.hidden = c.dataset.game !== v;
    practiceSeatField.hidden = v !== 'hidden_front';
  }
  pickGame(game);

  // --- rooms
  const roomsBody = h('tbody');
  const roomsTable = h('table.list', h('thead', h('tr',
    h('th', t('game')), h('th', t('room_host')), h('th', t('seats')), h('th', t('room_phase')), h('th.hide-sm', t('options')), h('th', ''))), roomsBody);
  const roomsBox = h('div', roomsTable);
  async function loadRooms() {
    try {
      const d = await get('/api/rooms');
      const rooms = Array.isArray(d) ? d : (d.rooms || []);
      clear(roomsBody);
      roomsCount.textContent = rooms.length ? ` ${rooms.length}` : '';
      if (!rooms.length) {
        clear(roomsBox, h('div.empty', t('no_rooms')));
        return;
      }
      clear(roomsBox, roomsTable);
      // the hosts' titles on their game's ladder (drawn on the next refresh once fetched)
      for (const v of ['four_player', 'hidden_front']) {
        onTitles(ladderOf('casual', v), rooms.filter(r => (r.variant || 'four_player') === v).map(r => r.host_id), loadRooms);
      }
      for (const r of rooms) {
        const seats = boardOf(r.variant).seats;
        const dots = h('span.seat-dots', seats.map(s => h('span', {
          class: 'seat-dot' + (r.seats && r.seats[s] ? ' filled' : ''), style: { background: SEAT_COLOURS[s] },
          title: seatName(s) + ': ' + (r.seats && r.seats[s] ? (r.seats[s].name || t('bot')) : t('empty_seat')),
        }, seatName(s))));
        roomsBody.append(h('tr', { 'data-variant': r.variant || 'four_player' },
          h('td', h('span.tag.game-tag', { 'data-testid': 'room-game' }, gameName(r.variant))),
          h('td', r.host || '–', r.host_id != null ? titleBadge(titleOf(ladderOf('casual', r.variant), r.host_id)) : null),
          h('td', dots, ' ', h('span.small.muted', `${t('spectators')} ${r.spectators || 0}`)),
          // The list holds rooms that have not started: waiting, with so many seats taken.
          h('td.small', { 'data-testid': 'room-phase' }, `${t('phase_' + (r.phase === 'deploying' ? 'deploy' : r.phase || 'waiting'))} · ${seats.filter(x => r.seats && r.seats[x]).length}/${seats.length}`),
          h('td.hide-sm.small', optionsSummary(r.options, r.variant)),
          h('td', h('a.btn.small', { href: '#/room/' + r.room }, t('join')))));
      }
    } catch (e) {
      clear(roomsBox, h('div.empty.error-text', errorText(e)));
    }
  }
  // --- games in progress anyone may watch (`rooms.games` of `list_rooms`, every node's)
  const gamesBox = h('div', { 'data-testid': 'live-games' });
  async function loadGames() {
    // over HTTP, for anyone: a visitor watches too (read-only, as any spectator)
    try {
      const d = await get('/api/games/live');
      const games = Array.isArray(d) ? d : [];
      gamesCount.textContent = games.length ? ` ${games.length}` : '';
      if (!games.length) { clear(gamesBox, h('div.empty', t('no_live_games'))); return; }
      clear(gamesBox, h('table.list', h('tbody', games.map(g => {
        const seats = boardOf(g.variant).seats;
        const names = seats.map(s => `${seatName(s)} ${g.seats && g.seats[s] ? (g.seats[s].name || t('bot')) : '–'}`).join(' · ');
        return h('tr', { 'data-testid': 'live-game', 'data-room': g.room },
          h('td', h('span.tag.game-tag', gameName(g.variant)), ' ', h('span.tag', t('kind_' + g.kind))),
          h('td.small', names),
          h('td.small', `${t('phase_' + (g.phase === 'deploying' ? 'deploy' : g.phase))}${g.phase === 'battle' ? ' · ' + t('steps_n', { n: g.steps }) : ''} · ${t('spectators')} ${g.spectators || 0}`),
          h('td', h('a.btn.small', { href: '#/room/' + g.room + (me ? '' : '?watch=1'), 'data-testid': 'watch-game' }, t('watch'))));
      }))));
    } catch (e) {
      clear(gamesBox, h('div.empty.error-text', errorText(e)));
    }
  }
  const roomsCount = h('span.count', { 'data-testid': 'rooms-count' });
  const gamesCount = h('span.count', { 'data-testid': 'games-count' });
  const roomsPanel = h('section.panel.pane-rooms', { 'data-testid': 'rooms-panel' },
    h('div.row', h('h2.grow', t('open_rooms')), h('button.btn.small', { onclick: () => { loadRooms(); loadGames(); } }, t('refresh'))),
    roomsBox);
  const gamesPanel = h('section.panel.pane-games', { 'data-testid': 'games-panel' }, h('h2', t('live_games')), gamesBox);
  const right = h('div.stack', roomsPanel, gamesPanel);

  // On a phone the lobby is three tabs on its first screen: play, the open rooms, the live games.
  const lobby = h('div.lobby', { 'data-tab': 'play' }, left, right);
  const tab = (name, label, count) => h('button.btn', {
    type: 'button', role: 'tab', 'data-tab': name, 'data-testid': 'lobby-tab-' + name,
    onclick: () => {
      lobby.dataset.tab = name;
      for (const b of tabs.children) b.setAttribute('aria-selected', String(b.dataset.tab === name));
    },
  }, label, count);
  const tabs = h('div.lobby-tabs', { role: 'tablist' },
    tab('play', t('lobby_tab_play')), tab('rooms', t('lobby_tab_rooms'), roomsCount), tab('games', t('lobby_tab_games'), gamesCount));
  tabs.firstChild.setAttribute('aria-selected', 'true');

  main.append(
    h('div.hero',
      h('div', h('h1', t('lobby_title')), h('p', t('tagline'))),
      me ? h('div', t('welcome', { name: me.name })) : h('div.row', h('a.btn.primary', { href: '#/login' }, t('login')), h('a.btn', { href: '#/register' }, t('register')))),
    tabs,
    lobby);
  loadRooms();
  loadGames();
  const poll = setInterval(() => { loadRooms(); loadGames(); }, 5000);
  offs.push(() => clearInterval(poll));

  function createRoomDialog() {
    // The game of the lobby's choice, changeable here; the options follow it.
    let form = optionsForm({}, game);
    const formBox = h('div', form.el);
    const variant = h('select', {
      name: 'variant', 'data-testid': 'room-variant',
      onchange: () => { form = optionsForm({}, variant.value); clear(formBox, form.el); },
    }, VARIANTS.map(v => h('option', { value: v, selected: v === game }, gameName(v))));
    const pub = h('select', { name: 'public' }, h('option', { value: 'true' }, t('public_room')), h('option', { value: 'false' }, t('private_room')));
    const err = h('div.error-text');
    const dlg = h('dialog',
      h('form.stack', {
        method: 'dialog',
        onsubmit: async (ev) => {
          ev.preventDefault();
          err.textContent = '';
          try {
            await session.ensure();
            const ack = await live.send('create_room', { public: pub.value === 'true', options: form.value(), variant: variant.value });
            // The creator plays: seated at South at once (another seat is a click away).
            try {
              await live.send('join_room', { room: ack.room });
              await live.send('take_seat', { room: ack.room, seat: 'S' });
            } catch { /* the room page still lets them sit */ }
            dlg.close();
            navigate('/room/' + ack.room);
          } catch (e) { err.textContent = errorText(e); }
        },
      },
        h('h2', t('create_room')),
        h('label.field', h('span', t('game')), variant),
        h('label.field', h('span', t('visibility')), pub),
        formBox,
        err,
        h('div.row', h('button.btn.primary', { type: 'submit', 'data-testid': 'create-room-submit' }, t('create')),
          h('button.btn', { type: 'button', onclick: () => dlg.close() }, t('cancel')))));
    document.body.append(dlg);
    dlg.addEventListener('close', () => dlg.remove());
    dlg.showModal();
  }

  return () => offs.forEach(f => f());
}
