//! The room's phase, carrying the data of that phase: a waiting room has optional seats; a game
//! (deploying, battle, finished) has every seat of its variant filled (four, or Hidden Front's S
//! and N; the others stay `None`) and a game id; the battle owns the engine's `Game`. The
//! compiler holds "this phase implies that field".
use super::super::protocol::{AutoPlay, ErrorCode, GameResults, PhaseName, ProtoError};
use super::super::store::DeploySeat;
use super::super::SeatOccupant;
use siguo_bots::Bot;
use siguo_rules::{BySeat, Game, RuleError, Seat, SeatSet};

pub(super) enum Phase {
    Waiting(Lobby),
    Deploying(Deploy),
    Battle(Battle),
    Finished(Finished),
}

/// (an empty waiting room: only a stand-in while a phase is moved into the next one)
impl Default for Phase {
    fn default() -> Self {
        Phase::Waiting(Lobby::default())
    }
}

/// A casual room before its game: seats come and go.
#[derive(Default)]
pub(super) struct Lobby {
    pub seats: BySeat<Option<Slot>>,
    /// since when nobody has been subscribed (an empty room closes after a while)
    pub empty_since: Option<i64>,
}

/// A seat of a waiting room.
pub(super) struct Slot {
    pub occ: SeatOccupant,
    pub ready: bool,
    pub offline_since: Option<i64>,
}

/// What every phase of a game shares: the game row and its seats.
pub(super) struct Table {
    pub game_id: i64,
    /// the seats of the game's variant (`None`: a seat that does not play)
    pub players: BySeat<Option<Player>>,
    /// the bots of the bot seats (`None` for people, and for a bot while it thinks)
    pub bots: BySeat<Option<Box<dyn Bot>>>,
}

/// A seat of a game.
pub(super) struct Player {
    pub occ: SeatOccupant,
    pub offline_since: Option<i64>,
    /// ranked: left, or away longer than the reconnect grace; its turns are skipped
    pub escaped: bool,
    /// 托管 (casual, practice): the computer plays this person's seat, and why
    pub auto: Option<AutoPlay>,
}

/// Deployment (布阵): each seat's secret set-up until all are confirmed or the clock runs out.
pub(super) struct Deploy {
    pub table: Table,
    /// (a seat that does not play: `DeploySeat::unused`, confirmed)
    pub seats: BySeat<DeploySeat>,
    pub deadline: i64,
}

/// The battle: the engine's game, the action count and the turn clock.
pub(super) struct Battle {
    pub table: Table,
    pub game: Game,
    /// actions in the log (the next action's sequence number)
    pub actions: usize,
    /// `None` when nobody is to move
    pub turn_deadline: Option<i64>,
    /// a bot is thinking (one at a time per room)
    pub bot_thinking: bool,
}

/// The game is over; the room stays open a while for its chat and last view.
pub(super) struct Finished {
    pub table: Table,
    pub game: Game,
    pub at: i64,
    /// a ranked game's results as the ladder applied them (sent in updates and snapshots)
    pub results: Option<GameResults>,
    /// 再来一局: the seats whose people asked for another game
    pub rematch: SeatSet,
    /// the people who left the room since the game ended (not waited for by a rematch)
    pub gone: Vec<i64>,
}

impl Finished {
    pub fn new(table: Table, game: Game, results: Option<GameResults>) -> Finished {
        let (at, rematch, gone) = (super::super::protocol::now_ms(), SeatSet::default(), vec![]);
        Finished { table, game, at, results, rematch, gone }
    }
}

impl Phase {
    pub fn name(&self) -> PhaseName {
        match self {
            Phase::Waiting(_) => PhaseName::Waiting,
            Phase::Deploying(_) => PhaseName::Deploying,
            Phase::Battle(_) => PhaseName::Battle,
            Phase::Finished(_) => PhaseName::Finished,
        }
    }

    /// The game's seats, once there is a game.
    pub fn table(&self) -> Option<&Table> {
        match self {
            Phase::Waiting(_) => None,
            Phase::Deploying(d) => Some(&d.table),
            Phase::Battle(b) => Some(&b.table),
            Phase::Finished(f) => Some(&f.table),
        }
    }

    pub fn table_mut(&mut self) -> Option<&mut Table> {
        match self {
            Phase::Waiting(_) => None,
            Phase::Deploying(d) => Some(&mut d.table),
            Phase::Battle(b) => Some(&mut b.table),
            Phase::Finished(f) => Some(&mut f.table),
        }
    }

    pub fn game_id(&self) -> Option<i64> {
        self.table().map(|t| t.game_id)
    }

    /// A finished ranked game's results, as the ladder applied them.
    pub fn results(&self) -> Option<&GameResults> {
        match self {
            Phase::Finished(f) => f.results.as_ref(),
            _ => None,
        }
    }

    /// The engine's game (battle and after).
    pub fn game(&self) -> Option<&Game> {
        match self {
            Phase::Battle(b) => Some(&b.game),
            Phase::Finished(f) => Some(&f.game),
            Phase::Waiting(_) | Phase::Deploying(_) => None,
        }
    }

    /// Who sits on a seat.
    pub fn occupant(&self, seat: Seat) -> Option<&SeatOccupant> {
        match self {
            Phase::Waiting(l) => l.seats[seat].as_ref().map(|s| &s.occ),
            other => other.table().and_then(|t| t.players[seat].as_ref()).map(|p| &p.occ),
        }
    }

    pub fn account_at(&self, seat: Seat) -> Option<i64> {
        self.occupant(seat).and_then(|o| o.account_id())
    }

    /// 托管: whether (and why) the computer plays a person's seat.
    pub fn auto(&self, seat: Seat) -> Option<AutoPlay> {
        self.table().and_then(|t| t.players[seat].as_ref()).and_then(|p| p.auto)
    }

    pub fn escaped(&self, seat: Seat) -> bool {
        self.table().is_some_and(|t| t.players[seat].as_ref().is_some_and(|p| p.escaped))
    }

    /// The refusal for an action that needs another phase.
    pub fn refuse(&self) -> ProtoError {
        match self {
            Phase::Finished(_) => RuleError::GameOver.into(),
            _ => ProtoError::new(
                ErrorCode::WrongPhase,
                format!("not possible while the room is {}", self.name().as_str()),
            ),
        }
    }

    pub fn lobby_mut(&mut self) -> Result<&mut Lobby, ProtoError> {
        match self {
            Phase::Waiting(l) => Ok(l),
            other => Err(other.refuse()),
        }
    }

    pub fn deploy_mut(&mut self) -> Result<&mut Deploy, ProtoError> {
        match self {
            Phase::Deploying(d) => Ok(d),
            other => Err(other.refuse()),
        }
    }

    pub fn battle(&self) -> Result<&Battle, ProtoError> {
        match self {
            Phase::Battle(b) => Ok(b),
            other => Err(other.refuse()),
        }
    }

    pub fn battle_mut(&mut self) -> Result<&mut Battle, ProtoError> {
        match self {
            Phase::Battle(b) => Ok(b),
            other => Err(other.refuse()),
        }
    }
}
