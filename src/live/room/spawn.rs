//! Creating rooms: a casual waiting room, a game that starts at deployment (ranked, practice),
//! and a game restored from the database after a restart.
use super::history::History;
use super::phase::{Battle, Deploy, Lobby, Phase, Player, Slot, Table};
use super::{Cmd, Room, RoomHandle};
use crate::error::{AppError, AppResult};
use crate::live::protocol::{now_ms, ServerMsg};
use crate::live::store::{self, DeploySeat, StoredGame, StoredStage};
use crate::live::{GameKind, Live, SeatOccupant, Who};
use rand::SeedableRng;
use siguo_bots::{Bot, Level};
use siguo_rules::{BySeat, Deployment, GameRecord, Options, Seat, Variant};
use std::collections::HashMap;
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

fn new_room(
    live: &Live,
    id: String,
    kind: GameKind,
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
        chat_times: HashMap::new(),
        retry_at: None,
        spectators_told: (0, 0, None),
        closed: false,
    };
    (room, rx)
}

/// Open a casual room (waiting phase). Returns (room id, invite code).
pub(crate) fn spawn_waiting(
    live: &Live,
    host: &Who,
    public: bool,
    options: Options,
) -> AppResult<(String, String)> {
    let id = random_code(8).to_lowercase();
    live.claim_room(host.account_id, &id)?;
    let invite = invite_code();
    let lobby = Lobby { seats: BySeat::default(), empty_since: Some(now_ms()) };
    let (mut room, rx) =
        new_room(live, id.clone(), GameKind::Casual, public, options, Phase::Waiting(lobby), 0);
    room.invite = Some(invite.clone());
    room.host = Some(host.account_id);
    room.names.insert(host.account_id, host.name.clone());
    live.register(&id, Some(&invite), None, RoomHandle { tx: room.me.clone() });
    room.update_summary();
    room.owner = Some(host.account_id);
    live.spawn(room.run(rx));
    Ok((id, invite))
}

/// Create a game in its deployment phase (ranked, practice).
pub(crate) async fn spawn_game(
    live: &Live,
    kind: GameKind,
    seats: BySeat<SeatOccupant>,
    options: Options,
) -> AppResult<(i64, String)> {
    let now = now_ms();
    let slots =
        seats.map(|_, occ| Some(Slot { occ: occ.clone(), ready: true, offline_since: Some(now) }));
    let lobby = Lobby { seats: slots, empty_since: None };
    let (mut room, rx) =
        new_room(live, String::new(), kind, false, options, Phase::Waiting(lobby), 0);
    room.host = seats.values().find_map(|o| o.account_id());
    room.begin_deployment().await?;
    let game_id = room.phase.game_id().ok_or_else(|| AppError::internal("no game id"))?;
    room.id = format!("g{game_id}");
    if kind == GameKind::Practice {
        // the player may share the game by this code (a link); nobody else gets in
        room.invite = Some(invite_code());
        if let Some(player) = room.host {
            live.claim_room(player, &room.id)?;
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
    seats: &BySeat<SeatOccupant>,
) {
    let mut told: Vec<i64> = vec![];
    for occ in seats.values() {
        let Some(account) = occ.account_id() else { continue };
        if told.contains(&account) {
            continue;
        }
        told.push(account);
        let mine = seats.seats_where(|o| o.account_id() == Some(account)).collect();
        let msg = ServerMsg::MatchFound { room: room.to_string(), game, kind, seats: mine };
        live.notify_account(account, &msg);
    }
}

/// Resume a game loaded from the database (clocks re-armed with the restore grace).
pub(crate) fn spawn_restored(live: &Live, g: StoredGame) -> AppResult<()> {
    let id = format!("g{}", g.id);
    let now = now_ms();
    let grace = live.config().restore_grace_seconds as i64 * 1000;
    let budget = live.config().bot_budget_ms;
    let mut bots = g.seats.map(|_, occ| match occ {
        SeatOccupant::Bot { level } => Some(make_bot(*level, budget)),
        SeatOccupant::Account { .. } => None,
    });
    let players = g.seats.map(|s, occ| Player {
        occ: occ.clone(),
        offline_since: occ.account_id().map(|_| now),
        escaped: g.escaped[s],
    });
    let phase = match g.stage {
        StoredStage::Deploying(stored) => {
            let mut seats = stored.unwrap_or_else(|| {
                BySeat::from_fn(|s| DeploySeat {
                    deployment: Deployment::random(s, &g.options, &mut rng()),
                    confirmed: false,
                    surrendered: false,
                })
            });
            for (s, d) in seats.iter_mut() {
                if let (Some(b), false) = (bots[s].as_mut(), d.confirmed) {
                    d.deployment = b.deploy(s, &g.options);
                    d.confirmed = true;
                }
            }
            let deadline = now + g.options.deploy_seconds as i64 * 1000 + grace;
            Phase::Deploying(Deploy {
                table: Table { game_id: g.id, players, bots },
                seats,
                deadline,
            })
        }
        StoredStage::Battle { deployments, actions } => {
            let record = GameRecord {
                variant: Variant::FourPlayer,
                options: g.options,
                deployments: deployments.to_vec(),
                actions,
            };
            let (game, events) = record.replay_with_events().map_err(AppError::internal)?;
            for b in bots.values_mut().flatten() {
                events.iter().for_each(|e| b.observe(e));
            }
            let table = Table { game_id: g.id, players, bots };
            let turn_deadline =
                game.turn().map(|_| now + g.options.move_seconds as i64 * 1000 + grace);
            let actions = record.actions.len();
            Phase::Battle(Battle { table, game, actions, turn_deadline, bot_thinking: false })
        }
    };
    // never equal to a version a client saw before the restart
    let (mut room, rx) = new_room(live, id.clone(), g.kind, false, g.options, phase, now as u64);
    room.host = Seat::ALL.into_iter().find_map(|s| room.phase.account_at(s));
    live.register(&id, None, Some(g.id), RoomHandle { tx: room.me.clone() });
    live.spawn(async move {
        room.finish_if_over().await;
        room.run(rx).await
    });
    Ok(())
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
        match self.live.db().run(move |c| store::append_actions(c, gid, 0, &[], Some(&f))).await {
            Ok(()) => self.enter_finished(),
            Err(e) => tracing::error!(game = gid, error = %e, "finishing restored game"),
        }
    }
}
