//! Creating rooms: a casual waiting room, a game that starts at deployment (ranked, practice),
//! and a game restored from the database after a restart.
use super::history::History;
use super::phase::{Battle, Deploy, Lobby, Phase, Player, Slot, Table};
use super::{Cmd, Room, RoomHandle};
use crate::error::{AppError, AppResult};
use crate::live::finish::ResultsSlot;
use crate::live::protocol::{now_ms, raw_event, LiveEvent, ServerMsg, WireEvent};
use crate::live::store::{self, DeploySeat, StoredGame, StoredStage};
use crate::live::{GameKind, Live, SeatOccupant, Who};
use rand::SeedableRng;
use siguo_bots::{Bot, Level};
use siguo_rules::{BySeat, Deployment, Event, GameRecord, Move, Options, Seat, Variant, View};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;
use tokio::sync::mpsc;

pub(super) fn rng() -> rand::rngs::StdRng {
    rand::rngs::StdRng::from_os_rng()
}

fn random_code(len: usize) -> String {
    use rand::Rng;
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
    let mut rng = rand::TryRngCore::unwrap_err(rand::rngs::OsRng);
    (0..len).map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())] as char).collect()
}

/// Invite codes: 12 characters of 32 (60 bits) from the operating system's CSPRNG.
pub const INVITE_LEN: usize = 12;

fn invite_code() -> String {
    random_code(INVITE_LEN)
}

pub(super) fn make_bot(level: Level, budget: u64) -> Box<dyn Bot> {
    use rand::Rng;
    siguo_bots::make_bot(level, rng().random(), Duration::from_millis(budget))
}

/// The stand-in for a bot that failed (a panic, an illegal answer): random legal moves.
fn fallback_bot() -> Box<dyn Bot> {
    make_bot(Level::Random, 0)
}

/// A bot's deployment for `seat` of `variant`; a bot that cannot deploy for this game (it
/// fails, or its set-up breaks the game's rules) gets a random legal one.
pub(super) fn bot_deployment(
    bot: &mut dyn Bot,
    variant: Variant,
    seat: Seat,
    options: &Options,
) -> Deployment {
    let d = catch_unwind(AssertUnwindSafe(|| bot.deploy_for(variant, seat, options))).ok();
    match d.filter(|d| d.seat == seat && d.validate_for(variant, options).is_ok()) {
        Some(d) => d,
        None => {
            tracing::warn!(variant = variant.name(), "a bot could not deploy; a random set-up");
            Deployment::random_for(variant, seat, options, &mut rng())
        }
    }
}

/// Show a bot the events; a bot that fails on them is replaced by the random-move fallback.
pub(super) fn observe_all(bot: &mut Option<Box<dyn Bot>>, events: &[Event]) {
    let Some(b) = bot.as_mut() else { return };
    if catch_unwind(AssertUnwindSafe(|| events.iter().for_each(|e| b.observe(e)))).is_err() {
        tracing::warn!("a bot failed to follow the game; random moves from now on");
        *bot = Some(fallback_bot());
    }
}

/// The bot's move among `moves` (`None` if there is none); a bot that fails or answers an
/// illegal move is replaced by the random-move fallback, which answers instead.
pub(super) fn bot_choice(bot: &mut Box<dyn Bot>, view: &View, moves: &[Move]) -> Option<Move> {
    if moves.is_empty() {
        return None;
    }
    let chosen = catch_unwind(AssertUnwindSafe(|| bot.choose(view, moves))).ok();
    if let Some(m) = chosen.filter(|m| moves.contains(m)) {
        return Some(m);
    }
    tracing::warn!("a bot failed to choose a legal move; random moves from now on");
    *bot = fallback_bot();
    Some(bot.choose(view, moves))
}

fn new_room(
    live: &Live,
    id: String,
    (kind, variant): (GameKind, Variant),
    public: bool,
    options: Options,
    phase: Phase,
    v: u64,
) -> (Room, mpsc::Receiver<Cmd>) {
    let (tx, rx) = mpsc::channel(1024);
    let room = Room {
        live: live.clone(),
        me: tx,
        id,
        kind,
        variant,
        public,
        invite: None,
        admitted: Default::default(),
        kicked: HashMap::new(),
        host: None,
        names: HashMap::new(),
        owner: None,
        created: now_ms(),
        options,
        phase,
        subs: HashMap::new(),
        history: History::new(v, live.config().resync_log),
        past: vec![],
        witnesses: vec![],
        chat_times: HashMap::new(),
        retry_at: None,
        spectators_told: (0, 0, None),
        presence_told: (0, None),
        presence_sent: None,
        closed: false,
        held: None,
        guard: crate::live::directory::Guard::new(live.directory().leases()),
    };
    (room, rx)
}

/// Open a casual room (waiting phase). Returns (room id, invite code).
pub(crate) fn spawn_waiting(
    live: &Live,
    host: &Who,
    (public, variant, options): (bool, Variant, Options),
    reserved: crate::live::RoomReservation,
) -> AppResult<(String, String)> {
    let id = random_code(8).to_lowercase();
    live.replace_room(reserved, &id);
    let invite = invite_code();
    let lobby = Lobby { seats: BySeat::default(), empty_since: Some(now_ms()) };
    let kind = (GameKind::Casual, variant);
    let (mut room, rx) =
        new_room(live, id.clone(), kind, public, options, Phase::Waiting(lobby), 0);
    room.invite = Some(invite.clone());
    room.host = Some(host.account_id);
    room.names.insert(host.account_id, host.name.clone());
    live.register(&id, Some(&invite), None, RoomHandle { tx: room.me.clone() });
    room.update_summary();
    room.owner = Some(host.account_id);
    live.spawn(room.run(rx));
    Ok((id, invite))
}

/// Create a game in its deployment phase (ranked, practice); `seats` fills every seat of
/// `variant`.
pub(crate) async fn spawn_game(
    live: &Live,
    (kind, variant): (GameKind, Variant),
    seats: BySeat<Option<SeatOccupant>>,
    options: Options,
    reserved: Option<crate::live::RoomReservation>,
) -> AppResult<(i64, String)> {
    let now = now_ms();
    // a person is away until one of their sockets joins; a bot is never away
    let slots = seats.map(|_, occ| {
        occ.clone().map(|occ| {
            let offline_since = occ.account_id().map(|_| now);
            Slot { occ, ready: true, offline_since }
        })
    });
    let lobby = Lobby { seats: slots, empty_since: None };
    let phase = Phase::Waiting(lobby);
    let (mut room, rx) = new_room(live, String::new(), (kind, variant), false, options, phase, 0);
    room.host = seats.values().flatten().find_map(|o| o.account_id());
    room.begin_deployment().await?;
    let game_id = room.phase.game_id().ok_or_else(|| AppError::internal("no game id"))?;
    room.id = format!("g{game_id}");
    if kind == GameKind::Practice {
        // the player may share the game by this code (a link); nobody else gets in
        room.invite = Some(invite_code());
        if let Some(player) = room.host {
            match reserved {
                Some(r) => live.replace_room(r, &room.id),
                None => live.claim_room(player, &room.id)?,
            }
            room.owner = Some(player);
        }
    }
    let invite = room.invite.clone();
    live.register(&room.id, invite.as_deref(), Some(game_id), RoomHandle { tx: room.me.clone() });
    if kind.is_ranked() {
        announce_match(live, &room.id, game_id, kind, &seats);
    }
    let room_id = room.id.clone();
    live.spawn(room.run(rx));
    Ok((game_id, room_id))
}

/// `match_found` to each matched account, once (with all its seats).
fn announce_match(
    live: &Live,
    room: &str,
    game: i64,
    kind: GameKind,
    seats: &BySeat<Option<SeatOccupant>>,
) {
    let mut told: Vec<i64> = vec![];
    for occ in seats.values().flatten() {
        let Some(account) = occ.account_id() else { continue };
        if told.contains(&account) {
            continue;
        }
        told.push(account);
        let mine = seats
            .seats_where(|o| o.as_ref().and_then(|o| o.account_id()) == Some(account))
            .collect();
        let node = live.node_id().to_string();
        let msg = ServerMsg::MatchFound { room: room.to_string(), game, kind, seats: mine, node };
        live.tell(account, &msg);
    }
}

/// Resume a game loaded from the database (clocks re-armed with the restore grace).
pub(crate) fn spawn_restored(live: &Live, g: StoredGame) -> AppResult<()> {
    let id = format!("g{}", g.id);
    let now = now_ms();
    let grace = live.config().restore_grace_seconds as i64 * 1000;
    let budget = live.config().bot_budget_ms;
    let variant = g.variant;
    let mut bots = g.seats.map(|_, occ| match occ {
        Some(SeatOccupant::Bot { level }) => Some(make_bot(*level, budget)),
        _ => None,
    });
    let players = g.seats.map(|s, occ| {
        occ.as_ref().map(|occ| Player {
            occ: occ.clone(),
            offline_since: occ.account_id().map(|_| now),
            escaped: g.escaped[s],
            auto: None,
        })
    });
    let mut past: Vec<crate::live::protocol::RawEvent> = vec![];
    let mut witnesses = vec![];
    let phase = match g.stage {
        StoredStage::Deploying(stored) => {
            let seats = restored_deployments(variant, &g.options, stored, &mut bots);
            let deadline = now + g.options.deploy_seconds as i64 * 1000 + grace;
            Phase::Deploying(Deploy {
                table: Table { game_id: g.id, players, bots },
                seats,
                deadline,
            })
        }
        StoredStage::Battle { deployments, actions } => {
            let record = GameRecord { variant, options: g.options, deployments, actions };
            let (game, events, seen) =
                record.replay_with_witnesses().map_err(AppError::internal)?;
            witnesses = seen;
            for b in bots.values_mut() {
                observe_all(b, &events);
            }
            let started = std::iter::once(LiveEvent::BattleStarted.into());
            past = started
                .chain(events.into_iter().map(WireEvent::from))
                .map(|e| raw_event(&e))
                .collect();
            let table = Table { game_id: g.id, players, bots };
            let turn_deadline =
                game.turn().map(|_| now + g.options.move_seconds as i64 * 1000 + grace);
            let actions = record.actions.len();
            Phase::Battle(Battle { table, game, actions, turn_deadline, bot_thinking: false })
        }
    };
    // never equal to a version a client saw before the restart
    let kind = (g.kind, variant);
    let (mut room, rx) = new_room(live, id.clone(), kind, g.public, g.options, phase, now as u64);
    room.host = variant.seats().iter().find_map(|s| room.phase.account_at(*s));
    room.past = past;
    room.witnesses = witnesses;
    if g.kind == GameKind::Practice {
        // a restored practice game counts against its player's rooms, as before the restart
        if let Some(player) = room.host {
            live.count_room(player, &id);
            room.owner = Some(player);
        }
    }
    live.register(&id, None, Some(g.id), RoomHandle { tx: room.me.clone() });
    live.spawn(async move {
        room.finish_if_over().await;
        room.leave_if_moved();
        room.run(rx).await
    });
    Ok(())
}

/// The set-ups of a game restored while deploying: as stored (random ones if none was stored),
/// the bots' confirmed at once.
fn restored_deployments(
    variant: Variant,
    options: &Options,
    stored: Option<BySeat<DeploySeat>>,
    bots: &mut BySeat<Option<Box<dyn Bot>>>,
) -> BySeat<DeploySeat> {
    let mut seats = stored.unwrap_or_else(|| {
        BySeat::from_fn(|s| match variant.has_seat(s) {
            true => DeploySeat {
                deployment: Deployment::random_for(variant, s, options, &mut rng()),
                confirmed: false,
                surrendered: false,
            },
            false => DeploySeat::unused(s),
        })
    });
    for (s, d) in seats.iter_mut() {
        if let (Some(b), false) = (bots[s].as_mut(), d.confirmed) {
            d.deployment = bot_deployment(b.as_mut(), variant, s, options);
            d.confirmed = true;
        }
    }
    seats
}

impl Room {
    /// A game restored as over (a crash between the last action and the final write) is
    /// finished now.
    async fn finish_if_over(&mut self) {
        let Phase::Battle(b) = &self.phase else { return };
        if !b.game.is_over() {
            return;
        }
        let f = self.finished_game(&b.game);
        let gid = b.table.game_id;
        let results = ResultsSlot::default();
        let applied = results.clone();
        let finish = move |c: &mut crate::db::DbConn| {
            applied.put(store::append_actions(c, gid, 0, &[], Some(&f))?);
            Ok(())
        };
        match self.write(gid, finish).await {
            Ok(()) => self.enter_finished(results.take()),
            Err(e) => tracing::error!(game = gid, error = %e, "finishing restored game"),
        }
    }
}
