//! The battle phase (rules.md §1, §5–§7; Hidden Front: hidden-front.md §1, §4–§5).
//!
//! Moves and combat are the same on both boards; the variant decides who is friend and foe
//! (teams NS/EW, or South against North), the turn order, and how the game ends.
use crate::bits::Bits;
use crate::board::{tables, Seat, Station, Tables, Team, Variant};
use crate::deploy::{DeployError, Deployment};
use crate::options::{FlagCapture, MineRule, Options};
use crate::piece::{Piece, Rank};
use arrayvec::ArrayVec;
use serde::{Deserialize, Serialize};

/// A move of the seat to move, with the stations it passes (`path[0] == from`, last == `to`).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Move {
    pub from: Station,
    pub to: Station,
    pub path: Vec<Station>,
}

impl Move {
    /// `"Sa1-Ca1"`
    pub fn notation(&self) -> String {
        format!("{}-{}", self.from, self.to)
    }
}

/// Something a seat (or the clock, or the table) does. JSON is internally tagged by `"type"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// The seat to move moves `from` → `to` (the path is chosen by the engine: a shortest legal one).
    Move { from: Station, to: Station },
    /// The seat to move timed out: a skip.
    Timeout,
    /// A live seat surrenders (any time).
    Surrender { seat: Seat },
    /// A live seat offers a draw.
    OfferDraw { seat: Seat },
    /// A live seat accepts the pending offer; when every other live seat has accepted, it is a draw.
    AcceptDraw { seat: Seat },
    /// A live seat refuses the pending offer; the offer ends.
    DeclineDraw { seat: Seat },
    /// All live players agreed to a draw (the referee's `"draw"`).
    AgreedDraw,
}

impl Action {
    /// Parse the referee's notation: `"Sa1-Ca1"`, `"timeout"`, `"surrender N"`, `"draw"`.
    ///
    /// Also accepted (extensions): `"offer N"`, `"accept N"`, `"decline N"`.
    pub fn parse_referee(s: &str) -> Option<Action> {
        let s = s.trim();
        match s {
            "timeout" => return Some(Action::Timeout),
            "draw" => return Some(Action::AgreedDraw),
            _ => {}
        }
        if let Some((word, seat)) = s.split_once(' ') {
            let mut cs = seat.trim().chars();
            let seat = Seat::from_letter(cs.next()?)?;
            if cs.next().is_some() {
                return None;
            }
            return match word {
                "surrender" => Some(Action::Surrender { seat }),
                "offer" => Some(Action::OfferDraw { seat }),
                "accept" => Some(Action::AcceptDraw { seat }),
                "decline" => Some(Action::DeclineDraw { seat }),
                _ => None,
            };
        }
        let (a, b) = s.split_once('-')?;
        Some(Action::Move { from: Station::parse(a)?, to: Station::parse(b)? })
    }
}

/// Outcome of a combat, as everyone sees it (never a rank).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CombatOutcome {
    AttackerWon,
    DefenderWon,
    BothRemoved,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ElimReason {
    FlagCaptured,
    NoLegalMove,
    Surrendered,
    TooManySkips,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WinReason {
    /// Both seats of the other team were eliminated (four-player).
    Elimination,
    /// Hidden Front: the enemy flag was captured.
    FlagCaptured,
    /// Hidden Front: the enemy had no legal move at the start of its turn.
    NoLegalMove,
    /// Hidden Front: the enemy's third timeout.
    Timeouts,
    /// Hidden Front: the enemy surrendered.
    Surrender,
}

impl WinReason {
    pub fn code(self) -> &'static str {
        match self {
            WinReason::Elimination => "elimination",
            WinReason::FlagCaptured => "flag_captured",
            WinReason::NoLegalMove => "no_legal_move",
            WinReason::Timeouts => "timeouts",
            WinReason::Surrender => "surrender",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    StepLimit,
    Agreement,
    /// Hidden Front: 100 steps without combat.
    NoCombat,
}

impl DrawReason {
    pub fn code(self) -> &'static str {
        match self {
            DrawReason::StepLimit => "step_limit",
            DrawReason::Agreement => "agreement",
            DrawReason::NoCombat => "no_combat",
        }
    }
}

/// The state of the game. JSON: `{"state": "ongoing"|"won"|"draw", "winner": "NS"|"EW"|"S"|"N"|null, "reason": "..."|null}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    /// A team won (four-player).
    Won {
        winner: Team,
        reason: WinReason,
    },
    /// A seat won (Hidden Front).
    SeatWon {
        winner: Seat,
        reason: WinReason,
    },
    Draw {
        reason: DrawReason,
    },
}

impl Status {
    /// Whether `seat` is among the winners (`None` while ongoing or after a draw).
    pub fn is_winner(&self, seat: Seat) -> Option<bool> {
        match *self {
            Status::Won { winner, .. } => Some(seat.team() == winner),
            Status::SeatWon { winner, .. } => Some(seat == winner),
            Status::Ongoing | Status::Draw { .. } => None,
        }
    }
}

/// Hidden Front: a side's third timeout loses (hidden-front.md §5).
pub const HF_TIMEOUT_LIMIT: u32 = 3;
/// Hidden Front: this many steps without combat draw the game.
pub const HF_QUIET_LIMIT: u32 = 100;
/// Hidden Front: after an offer at step n, the same side may offer again at step n + 10.
pub const HF_REOFFER_STEPS: u32 = 10;

/// What happened. Events carry **no ranks**: they are public and may go to every receiver.
/// (A flag revealed is public by rule.) JSON is internally tagged by `"type"`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    Moved {
        seat: Seat,
        from: Station,
        to: Station,
        path: Vec<Station>,
        combat: Option<CombatOutcome>,
    },
    Skipped {
        seat: Seat,
        skips: u32,
    },
    FlagRevealed {
        seat: Seat,
        station: Station,
    },
    Eliminated {
        seat: Seat,
        reason: ElimReason,
    },
    DrawOffered {
        seat: Seat,
    },
    DrawAccepted {
        seat: Seat,
    },
    DrawDeclined {
        seat: Seat,
    },
    DrawOfferExpired {
        seat: Seat,
    },
    /// The next seat to move and the battle-step counter.
    Turn {
        seat: Seat,
        steps: u32,
    },
    GameOver {
        status: Status,
    },
}

/// Why an action is refused. Stable snake_case `code()`; the game is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RuleError {
    #[error("the game is over")]
    GameOver,
    #[error("it is not this seat's turn")]
    NotYourTurn,
    #[error("no piece at the starting station")]
    NoPiece,
    #[error("that piece does not belong to the seat to move")]
    NotYourPiece,
    #[error("that piece cannot move")]
    Immovable,
    #[error("illegal move")]
    IllegalMove,
    #[error("that seat is eliminated")]
    SeatEliminated,
    #[error("no draw offer is pending")]
    NoDrawOffer,
    #[error("a draw offer is already pending")]
    DrawOfferPending,
    #[error("this seat may not offer a draw again yet")]
    DrawOfferTooSoon,
    #[error("a seat cannot answer its own offer")]
    OwnDrawOffer,
}

impl RuleError {
    pub fn code(&self) -> &'static str {
        match self {
            RuleError::GameOver => "game_over",
            RuleError::NotYourTurn => "not_your_turn",
            RuleError::NoPiece => "no_piece",
            RuleError::NotYourPiece => "not_your_piece",
            RuleError::Immovable => "immovable",
            RuleError::IllegalMove => "illegal_move",
            RuleError::SeatEliminated => "seat_eliminated",
            RuleError::NoDrawOffer => "no_draw_offer",
            RuleError::DrawOfferPending => "draw_offer_pending",
            RuleError::DrawOfferTooSoon => "draw_offer_too_soon",
            RuleError::OwnDrawOffer => "own_draw_offer",
        }
    }
}

// Piece cells: 0 = empty, else `(owner << 4) | (rank as u8 + 1)`.
pub(crate) const FLAG: u8 = Rank::Flag as u8;
pub(crate) const MINE: u8 = Rank::Mine as u8;
pub(crate) const BOMB: u8 = Rank::Bomb as u8;
pub(crate) const ENGINEER: u8 = Rank::Engineer as u8;
pub(crate) const COMMANDER: u8 = Rank::Commander as u8;

#[inline(always)]
pub(crate) fn cell_of(p: Piece) -> u8 {
    ((p.owner.index() as u8) << 4) | (p.rank as u8 + 1)
}
#[inline(always)]
fn cell_owner(c: u8) -> usize {
    (c >> 4) as usize
}
#[inline(always)]
fn cell_rank(c: u8) -> u8 {
    (c & 15) - 1
}
pub(crate) fn cell_piece(c: u8) -> Option<Piece> {
    (c != 0).then(|| Piece {
        owner: Seat::from_index(cell_owner(c)),
        rank: Rank::ALL[cell_rank(c) as usize],
    })
}

/// A game in its battle phase. Cloneable, comparable; changed only by [`Game::apply`]
/// (or [`Game::play_fast`] with a move from the generator).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    pub(crate) variant: Variant,
    pub(crate) options: Options,
    pub(crate) board: [u8; Station::COUNT],
    pub(crate) occ: [Bits; 4],
    /// The seat to move (after the end: the seat that would have moved).
    pub(crate) turn: Seat,
    pub(crate) status: Status,
    pub(crate) steps: u32,
    /// Steps since the last combat (Hidden Front's draw rule).
    pub(crate) quiet: u32,
    /// Skips (Hidden Front: timeouts).
    pub(crate) skips: [u32; 4],
    pub(crate) elim: [Option<ElimReason>; 4],
    pub(crate) revealed: [bool; 4],
    /// Pending offer: offering seat and a bitmask of seats that accepted.
    pub(crate) offer: Option<(Seat, u8)>,
    /// Number of turns that began for each seat.
    pub(crate) turns_started: [u32; 4],
    /// `turns_started` of the seat when it last offered a draw (Hidden Front: `steps`).
    pub(crate) last_offer: [Option<u32>; 4],
    pub(crate) initial: Vec<Event>,
    /// Per seat, the pieces it had on the board when it was eliminated (station index, cell):
    /// removed from play, named again in the full reveal at the end.
    pub(crate) fallen: [Vec<(u8, u8)>; 4],
}

/// Connected components of empty rail stations, built on demand during one generation.
struct Comps {
    label: [u8; Station::COUNT],
    /// Per component: its stations, and the occupied rail stations next to it. (An `ArrayVec`:
    /// no heap, and nothing to clear per generation — zeroing a 74-entry array was half of a
    /// move generation's time.)
    sets: ArrayVec<(Bits, Bits), 74>,
}

impl Comps {
    #[inline(always)]
    fn new() -> Comps {
        Comps { label: [u8::MAX; Station::COUNT], sets: ArrayVec::new() }
    }
    /// The component of the empty rail station `v`: (members, occupied border).
    #[inline]
    fn of(&mut self, g: &Game, t: &Tables, v: usize) -> (Bits, Bits) {
        let l = self.label[v] as usize;
        if let Some(known) = self.sets.get(l) {
            return *known;
        }
        let id = self.sets.len();
        let (mut members, mut border) = (Bits::default(), Bits::default());
        let mut stack = [0u8; 80];
        let mut n = 1;
        stack[0] = v as u8;
        self.label[v] = id as u8;
        members.set(v);
        while n > 0 {
            n -= 1;
            let u = stack[n] as usize;
            for k in 0..t.radj_n[u] as usize {
                let w = t.radj[u][k] as usize;
                if g.board[w] != 0 {
                    border.set(w);
                } else if self.label[w] == u8::MAX {
                    self.label[w] = id as u8;
                    members.set(w);
                    stack[n] = w as u8;
                    n += 1;
                }
            }
        }
        self.sets.push((members, border));
        (members, border)
    }
}

/// Where events go: the public API collects them, the fast path drops them.
pub(crate) struct Sink<'a> {
    events: Option<&'a mut Vec<Event>>,
}

impl Sink<'_> {
    #[inline(always)]
    fn on(&self) -> bool {
        self.events.is_some()
    }
    #[inline(always)]
    fn push(&mut self, e: impl FnOnce() -> Event) {
        if let Some(v) = self.events.as_deref_mut() {
            v.push(e());
        }
    }
}

impl Game {
    pub(crate) fn empty(variant: Variant, options: Options) -> Game {
        Game {
            variant,
            options,
            board: [0; Station::COUNT],
            occ: [Bits::default(); 4],
            turn: variant.first_seat(),
            status: Status::Ongoing,
            steps: 0,
            quiet: 0,
            skips: [0; 4],
            elim: [None; 4],
            revealed: [false; 4],
            offer: None,
            turns_started: [0; 4],
            last_offer: [None; 4],
            initial: Vec::new(),
            fallen: Default::default(),
        }
    }

    pub(crate) fn put(&mut self, st: Station, p: Piece) {
        let i = st.index();
        let old = self.board[i];
        if old != 0 {
            self.occ[cell_owner(old)].clear(i);
        }
        self.board[i] = cell_of(p);
        self.occ[p.owner.index()].set(i);
    }

    /// Start the four-player battle from four validated deployments (index = `Seat::index()`);
    /// North moves first. Seats with no legal move at the start are eliminated at once (see
    /// `initial_events`).
    pub fn new(options: Options, deployments: &[Deployment; 4]) -> Result<Game, DeployError> {
        Game::start(Variant::FourPlayer, options, deployments)
    }

    /// Start the battle of either game from one validated deployment per seat, in the order of
    /// `variant.seats()` (four-player: N E S W; Hidden Front: S N). The first seat moves first;
    /// a first seat without a legal move is handled as at any turn start.
    pub fn start(
        variant: Variant,
        options: Options,
        deployments: &[Deployment],
    ) -> Result<Game, DeployError> {
        let mut g = Game::empty(variant, options);
        let seats = variant.seats();
        let board = variant.board();
        for (i, &seat) in seats.iter().enumerate() {
            let Some(d) = deployments.get(i) else {
                let station = board.deployment_zone(seat).next().expect("a region");
                return Err(DeployError::EmptyStation { station });
            };
            d.validate_for(variant, &options)?;
            if d.seat != seat {
                let st = *d.pieces.keys().next().expect("validated deployment has pieces");
                return Err(DeployError::OutsideRegion { station: st });
            }
            for (&st, &rank) in &d.pieces {
                g.put(st, Piece { owner: seat, rank });
            }
        }
        if let Some(extra) = deployments.get(seats.len()) {
            let station = *extra.pieces.keys().next().unwrap_or(&Station(0));
            return Err(DeployError::OutsideRegion { station });
        }
        let mut ev = Vec::new();
        let sink = &mut Sink { events: Some(&mut ev) };
        match variant {
            Variant::FourPlayer => g.start_turn(Seat::N, sink),
            Variant::HiddenFront => g.hf_start_turn(variant.first_seat(), sink),
        }
        g.initial = ev;
        Ok(g)
    }
    /// Which game this is.
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// Steps since the last combat (counted in both games; Hidden Front draws at 100).
    pub fn quiet_steps(&self) -> u32 {
        self.quiet
    }
    /// Events produced while starting (eliminations of seats without a legal move; the first `Turn`).
    pub fn initial_events(&self) -> Vec<Event> {
        self.initial.clone()
    }
    pub fn options(&self) -> &Options {
        &self.options
    }
    /// The seat to move, `None` once the game is over.
    pub fn turn(&self) -> Option<Seat> {
        matches!(self.status, Status::Ongoing).then_some(self.turn)
    }
    pub fn status(&self) -> Status {
        self.status
    }
    pub fn is_over(&self) -> bool {
        !matches!(self.status, Status::Ongoing)
    }
    pub fn steps(&self) -> u32 {
        self.steps
    }
    pub fn skips(&self, seat: Seat) -> u32 {
        self.skips[seat.index()]
    }
    /// Whether `seat` plays in this game and is not eliminated.
    pub fn in_play(&self, seat: Seat) -> bool {
        self.variant.has_seat(seat) && !self.is_eliminated(seat)
    }
    pub fn is_eliminated(&self, seat: Seat) -> bool {
        self.elim[seat.index()].is_some()
    }
    /// Elimination reason per seat. (Seats listed as eliminated in a [`crate::Position`] report
    /// `Surrendered`: a position does not say why.)
    pub fn elimination(&self, seat: Seat) -> Option<ElimReason> {
        self.elim[seat.index()]
    }
    /// Seats whose flag is public (commander removed).
    pub fn flag_revealed(&self, seat: Seat) -> bool {
        self.revealed[seat.index()]
    }
    /// The seat with a pending draw offer, and the seats that accepted it.
    pub fn draw_offer(&self) -> Option<(Seat, Vec<Seat>)> {
        self.offer.map(|(s, m)| {
            (s, Seat::ALL.into_iter().filter(|x| m & (1 << x.index()) != 0).collect())
        })
    }
    /// Whether `seat` may offer a draw now (live, no offer pending, 10-own-turn rule; Hidden
    /// Front: 10 steps after its last offer).
    pub fn can_offer_draw(&self, seat: Seat) -> bool {
        self.offer_error(seat).is_none()
    }
    fn offer_error(&self, seat: Seat) -> Option<RuleError> {
        if self.is_over() {
            return Some(RuleError::GameOver);
        }
        if !self.in_play(seat) {
            return Some(RuleError::SeatEliminated);
        }
        if self.offer.is_some() {
            return Some(RuleError::DrawOfferPending);
        }
        if self.variant == Variant::HiddenFront {
            return match self.last_offer[seat.index()] {
                Some(n) if self.steps < n + HF_REOFFER_STEPS => Some(RuleError::DrawOfferTooSoon),
                _ => None,
            };
        }
        match self.last_offer[seat.index()] {
            Some(t) if self.turns_started[seat.index()] < t + 10 => {
                Some(RuleError::DrawOfferTooSoon)
            }
            _ => None,
        }
    }
    /// The true piece on a station. Server-internal: never send this to a client; use [`Game::view`].
    pub fn piece_at(&self, s: Station) -> Option<Piece> {
        cell_piece(self.board[s.index()])
    }
    /// The pieces `seat` had on the board when it was eliminated (none while it plays).
    pub fn fallen(&self, seat: Seat) -> impl Iterator<Item = (Station, Piece)> + '_ {
        self.fallen[seat.index()].iter().filter_map(|&(s, c)| Some((Station(s), cell_piece(c)?)))
    }
    /// The stations holding a seat's pieces, ascending.
    pub fn stations_of(&self, seat: Seat) -> Vec<Station> {
        let mut v = Vec::new();
        self.occ[seat.index()].for_each(|i| v.push(Station(i as u8)));
        v
    }

    // ----- move generation -----

    #[inline(always)]
    fn capture_ok(&self, attacker: u8) -> bool {
        match self.options.flag_capture {
            FlagCapture::Any => true,
            FlagCapture::NotCommander => attacker != COMMANDER,
            FlagCapture::EngineerOnly => attacker == ENGINEER,
        }
    }

    /// The side of a piece cell: its team (four-player), or its seat (Hidden Front).
    #[inline(always)]
    fn side(&self, c: u8) -> u8 {
        match self.variant {
            Variant::FourPlayer => (c >> 4) & 1,
            Variant::HiddenFront => c >> 4,
        }
    }

    /// The side (as [`Game::side`] numbers it) of seat index `me`.
    fn seat_side(&self, me: usize) -> u8 {
        match self.variant {
            Variant::FourPlayer => (me & 1) as u8,
            Variant::HiddenFront => me as u8,
        }
    }

    /// The side whose region holds station `d` on this game's board (`None`: the centre, or a
    /// station of the other board).
    fn station_side(&self, d: usize) -> Option<u8> {
        let st = Station::from_index(d)?;
        if st.variant() != self.variant {
            return None;
        }
        Some(self.seat_side(st.region()?.index()))
    }

    /// May a piece of `rank`/`team` end its move on `d`?
    #[inline(always)]
    fn can_enter(&self, t: &Tables, rank: u8, team: u8, d: usize) -> bool {
        // a piece the `flag_capture` option forbids never enters an enemy headquarters, whatever
        // it holds (rules.md §5: by station, so the legal moves do not tell where a flag is)
        if t.hq[d] && !self.capture_ok(rank) && self.station_side(d) != Some(team) {
            return false;
        }
        let c = self.board[d];
        if c == 0 {
            return true;
        }
        if self.side(c) == team || t.camp[d] {
            return false;
        }
        cell_rank(c) != FLAG || self.capture_ok(rank)
    }

    /// Whether the piece on `s` can move at all by its kind and station.
    #[inline(always)]
    fn mobile(t: &Tables, c: u8, s: usize) -> bool {
        c != 0 && cell_rank(c) > MINE && !t.hq[s]
    }

    /// Destinations of the piece on `s` (assumed mobile), into `out`.
    #[inline]
    fn piece_dests(&self, t: &Tables, s: usize, out: &mut Bits) {
        let c = self.board[s];
        let rank = cell_rank(c);
        let team = self.side(c);
        for k in 0..t.adj_n[s] as usize {
            let d = t.adj[s][k] as usize;
            if self.can_enter(t, rank, team, d) {
                out.set(d);
            }
        }
        if !t.rail[s] {
            return;
        }
        if rank == ENGINEER {
            let mut seen = Bits::default();
            seen.set(s);
            let mut queue = [0u8; Station::COUNT];
            let (mut head, mut tail) = (0usize, 1usize);
            queue[0] = s as u8;
            while head < tail {
                let u = queue[head] as usize;
                head += 1;
                for k in 0..t.radj_n[u] as usize {
                    let v = t.radj[u][k] as usize;
                    if seen.has(v) {
                        continue;
                    }
                    seen.set(v);
                    if self.board[v] == 0 {
                        out.set(v);
                        queue[tail] = v as u8;
                        tail += 1;
                    } else if self.can_enter(t, rank, team, v) {
                        out.set(v);
                    }
                }
            }
        } else {
            for r in t.ray_start[s] as usize..t.ray_start[s + 1] as usize {
                let (start, len) = t.rays[r];
                for &d in &t.ray_data[start as usize..start as usize + len as usize] {
                    let d = d as usize;
                    if self.board[d] == 0 {
                        out.set(d);
                    } else {
                        if self.can_enter(t, rank, team, d) {
                            out.set(d);
                        }
                        break;
                    }
                }
            }
        }
    }

    /// Whether `seat` has at least one legal move (every slide starts with a legal step).
    pub(crate) fn has_move(&self, seat: Seat) -> bool {
        let t = tables();
        let me = seat.index();
        let (base, flags) = self.forbidden(t, me);
        let with_flags = base.or(flags);
        let occ = self.occ[me];
        for w in 0..3 {
            let mut x = occ.0[w];
            while x != 0 {
                let s = w * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                let c = self.board[s];
                if Self::mobile(t, c, s) {
                    let f = if self.capture_ok(cell_rank(c)) { base } else { with_flags };
                    if t.adj_mask[s].and_not(f).any() {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// Stations that no piece of seat `me` may end on: its team's pieces, enemy pieces in
    /// camps; and (second value) for pieces the `flag_capture` option forbids, the enemy
    /// headquarters (all of them, by station: rules.md §5) and any enemy flag elsewhere.
    #[inline(always)]
    fn forbidden(&self, t: &Tables, me: usize) -> (Bits, Bits) {
        let (team, enemy) = self.sides(me);
        let base = team.or(enemy.and(t.camp_mask));
        let mut flags = Bits::default();
        if self.options.flag_capture != FlagCapture::Any {
            enemy.for_each(|i| {
                if cell_rank(self.board[i]) == FLAG {
                    flags.set(i);
                }
            });
            // every enemy headquarters of this board, whatever it holds
            let mine = self.seat_side(me);
            for i in (0..Station::COUNT).filter(|&i| t.hq[i]) {
                let side = self.station_side(i);
                if side.is_some() && side != Some(mine) {
                    flags.set(i);
                }
            }
        }
        (base, flags)
    }

    /// The pieces of seat `me`'s side and of its enemies.
    #[inline(always)]
    fn sides(&self, me: usize) -> (Bits, Bits) {
        match self.variant {
            Variant::FourPlayer => (
                self.occ[me].or(self.occ[(me + 2) & 3]),
                self.occ[(me + 1) & 3].or(self.occ[(me + 3) & 3]),
            ),
            Variant::HiddenFront => (self.occ[me], self.occ[(me + 2) & 3]),
        }
    }

    /// Run the fast generator over every mobile piece of the seat to move: `emit(from, dests)`.
    /// Steps are neighbour bitsets; slides walk precomputed rays; engineers share one lazily
    /// built table of empty-rail components.
    #[inline]
    fn gen(&self, mut emit: impl FnMut(usize, &Bits)) {
        let t = tables();
        let me = self.turn.index();
        let (base, flags) = self.forbidden(t, me);
        let with_flags = base.or(flags);
        let mut comps = Comps::new();
        let occ = self.occ[me];
        for w in 0..3 {
            let mut x = occ.0[w];
            while x != 0 {
                let s = w * 64 + x.trailing_zeros() as usize;
                x &= x - 1;
                let c = self.board[s];
                if !Self::mobile(t, c, s) {
                    continue;
                }
                let rank = cell_rank(c);
                let mut d = t.adj_mask[s];
                if t.rail[s] {
                    if rank == ENGINEER {
                        for k in 0..t.radj_n[s] as usize {
                            let v = t.radj[s][k] as usize;
                            if self.board[v] == 0 {
                                let (m, b) = comps.of(self, t, v);
                                d = d.or(m).or(b);
                            }
                        }
                    } else {
                        for r in t.ray_start[s] as usize..t.ray_start[s + 1] as usize {
                            let (start, len) = t.rays[r];
                            for &y in &t.ray_data[start as usize..start as usize + len as usize] {
                                d.set(y as usize);
                                if self.board[y as usize] != 0 {
                                    break;
                                }
                            }
                        }
                    }
                }
                let d = d.and_not(if self.capture_ok(rank) { base } else { with_flags });
                emit(s, &d);
            }
        }
    }

    /// Every legal move of the seat to move as `(from, to)` pairs, sorted, into `out` (cleared
    /// first). Allocation-free once `out` has grown: the fast path for bots and benchmarks.
    pub fn legal_pairs(&self, out: &mut Vec<(Station, Station)>) {
        out.clear();
        if self.is_over() {
            return;
        }
        self.gen(|s, d| d.for_each(|to| out.push((Station(s as u8), Station(to as u8)))));
    }

    /// Number of legal moves of the seat to move (no allocation).
    pub fn legal_move_count(&self) -> usize {
        if self.is_over() {
            return 0;
        }
        let mut n = 0;
        self.gen(|_, d| n += d.count() as usize);
        n
    }

    /// A shortest path of a legal move (the move is assumed legal).
    fn path(&self, from: usize, to: usize) -> Vec<Station> {
        let t = tables();
        if t.adj[from][..t.adj_n[from] as usize].contains(&(to as u8)) {
            return vec![Station(from as u8), Station(to as u8)];
        }
        let c = self.board[from];
        if cell_rank(c) == ENGINEER {
            let mut parent = [u8::MAX; Station::COUNT];
            parent[from] = from as u8;
            let mut queue = std::collections::VecDeque::from([from]);
            while let Some(u) = queue.pop_front() {
                for k in 0..t.radj_n[u] as usize {
                    let v = t.radj[u][k] as usize;
                    if parent[v] != u8::MAX {
                        continue;
                    }
                    parent[v] = u as u8;
                    if v == to {
                        let mut p = vec![Station(to as u8)];
                        let mut x = to;
                        while x != from {
                            x = parent[x] as usize;
                            p.push(Station(x as u8));
                        }
                        p.reverse();
                        return p;
                    }
                    if self.board[v] == 0 {
                        queue.push_back(v);
                    }
                }
            }
        } else {
            for r in t.ray_start[from] as usize..t.ray_start[from + 1] as usize {
                let (start, len) = t.rays[r];
                let ray = &t.ray_data[start as usize..start as usize + len as usize];
                let mut p = vec![Station(from as u8)];
                for &d in ray {
                    p.push(Station(d));
                    if d as usize == to {
                        return p;
                    }
                    if self.board[d as usize] != 0 {
                        break;
                    }
                }
            }
        }
        vec![Station(from as u8), Station(to as u8)]
    }

    /// Every legal move of the seat to move, sorted by (from, to); one entry per destination.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut pairs = Vec::new();
        self.legal_pairs(&mut pairs);
        pairs
            .into_iter()
            .map(|(f, to)| Move { from: f, to, path: self.path(f.index(), to.index()) })
            .collect()
    }
    /// Legal moves of the seat to move starting at `from`.
    pub fn legal_moves_from(&self, from: Station) -> Vec<Move> {
        let t = tables();
        let s = from.index();
        let c = self.board[s];
        if self.is_over() || c == 0 || cell_owner(c) != self.turn.index() || !Self::mobile(t, c, s)
        {
            return Vec::new();
        }
        let mut d = Bits::default();
        self.piece_dests(t, s, &mut d);
        let mut v = Vec::new();
        d.for_each(|to| v.push(Move { from, to: Station(to as u8), path: self.path(s, to) }));
        v
    }

    /// Check a move of the seat to move.
    pub fn check_move(&self, from: Station, to: Station) -> Result<(), RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        let t = tables();
        let s = from.index();
        let c = self.board[s];
        if c == 0 {
            return Err(RuleError::NoPiece);
        }
        if cell_owner(c) != self.turn.index() {
            return Err(RuleError::NotYourPiece);
        }
        if !Self::mobile(t, c, s) {
            return Err(RuleError::Immovable);
        }
        let mut d = Bits::default();
        self.piece_dests(t, s, &mut d);
        if d.has(to.index()) {
            Ok(())
        } else {
            Err(RuleError::IllegalMove)
        }
    }

    // ----- applying -----

    /// Apply one action. On error the game is unchanged.
    pub fn apply(&mut self, action: &Action) -> Result<Vec<Event>, RuleError> {
        if self.is_over() {
            return Err(RuleError::GameOver);
        }
        let mut ev = Vec::new();
        match *action {
            Action::Move { from, to } => {
                self.check_move(from, to)?;
                let path = self.path(from.index(), to.index());
                self.exec_move(from.index(), to.index(), path, &mut Sink { events: Some(&mut ev) });
            }
            Action::Timeout => {
                self.exec_timeout(&mut Sink { events: Some(&mut ev) });
            }
            Action::Surrender { seat } => {
                if !self.in_play(seat) {
                    return Err(RuleError::SeatEliminated);
                }
                let sink = &mut Sink { events: Some(&mut ev) };
                if self.variant == Variant::HiddenFront {
                    let winner = seat.partner();
                    self.end(Status::SeatWon { winner, reason: WinReason::Surrender }, sink);
                    return Ok(ev);
                }
                self.eliminate(seat, ElimReason::Surrendered, sink);
                if !self.game_over_check(sink, false) && seat == self.turn {
                    self.start_turn(seat.next(), sink);
                }
            }
            Action::OfferDraw { seat } => {
                if let Some(e) = self.offer_error(seat) {
                    return Err(e);
                }
                self.offer = Some((seat, 0));
                self.last_offer[seat.index()] = Some(match self.variant {
                    Variant::FourPlayer => self.turns_started[seat.index()],
                    Variant::HiddenFront => self.steps,
                });
                ev.push(Event::DrawOffered { seat });
            }
            Action::AcceptDraw { seat } => {
                let (by, mask) = self.answer_check(seat)?;
                let mask = mask | 1 << seat.index();
                self.offer = Some((by, mask));
                ev.push(Event::DrawAccepted { seat });
                let all = Seat::ALL
                    .into_iter()
                    .filter(|&s| s != by && self.in_play(s))
                    .all(|s| mask & (1 << s.index()) != 0);
                if all {
                    self.offer = None;
                    self.status = Status::Draw { reason: DrawReason::Agreement };
                    ev.push(Event::GameOver { status: self.status });
                }
            }
            Action::DeclineDraw { seat } => {
                self.answer_check(seat)?;
                self.offer = None;
                ev.push(Event::DrawDeclined { seat });
            }
            Action::AgreedDraw => {
                self.offer = None;
                self.status = Status::Draw { reason: DrawReason::Agreement };
                ev.push(Event::GameOver { status: self.status });
            }
        }
        Ok(ev)
    }

    fn answer_check(&self, seat: Seat) -> Result<(Seat, u8), RuleError> {
        if !self.in_play(seat) {
            return Err(RuleError::SeatEliminated);
        }
        match self.offer {
            None => Err(RuleError::NoDrawOffer),
            Some((by, _)) if by == seat => Err(RuleError::OwnDrawOffer),
            Some(o) => Ok(o),
        }
    }

    /// Apply a move produced by [`Game::legal_pairs`] without checking it and without building
    /// events: the fast path for playouts. Panics (debug) or misbehaves on an illegal move.
    pub fn play_fast(&mut self, from: Station, to: Station) {
        debug_assert!(self.check_move(from, to).is_ok());
        self.exec_move(from.index(), to.index(), Vec::new(), &mut Sink { events: None });
    }

    /// A skip of the seat to move without building events (see [`Game::play_fast`]).
    pub fn timeout_fast(&mut self) {
        if !self.is_over() {
            self.exec_timeout(&mut Sink { events: None });
        }
    }

    fn exec_timeout(&mut self, sink: &mut Sink) {
        let seat = self.turn;
        let i = seat.index();
        self.skips[i] += 1;
        self.steps += 1;
        self.quiet += 1;
        let skips = self.skips[i];
        sink.push(|| Event::Skipped { seat, skips });
        if self.variant == Variant::HiddenFront {
            self.hf_end_step(seat, true, sink);
            return;
        }
        if skips >= self.options.max_skips {
            self.eliminate(seat, ElimReason::TooManySkips, sink);
        }
        self.finish_turn(sink);
    }

    fn exec_move(&mut self, from: usize, to: usize, path: Vec<Station>, sink: &mut Sink) {
        let a = self.board[from];
        let d = self.board[to];
        let ao = cell_owner(a);
        self.board[from] = 0;
        self.occ[ao].clear(from);
        let mut lost_commander = [usize::MAX; 2];
        let mut flag_taken = usize::MAX;
        let combat = if d == 0 {
            self.board[to] = a;
            self.occ[ao].set(to);
            None
        } else {
            let (ar, dr, dow) = (cell_rank(a), cell_rank(d), cell_owner(d));
            let outcome = if ar == BOMB || dr == BOMB {
                CombatOutcome::BothRemoved
            } else if dr == FLAG {
                CombatOutcome::AttackerWon
            } else if dr == MINE {
                if ar == ENGINEER {
                    CombatOutcome::AttackerWon
                } else if self.options.mines == MineRule::Mutual {
                    CombatOutcome::BothRemoved
                } else {
                    CombatOutcome::DefenderWon
                }
            } else if ar > dr {
                CombatOutcome::AttackerWon
            } else if ar < dr {
                CombatOutcome::DefenderWon
            } else {
                CombatOutcome::BothRemoved
            };
            if dr == FLAG {
                flag_taken = dow;
            }
            match outcome {
                CombatOutcome::AttackerWon => {
                    self.occ[dow].clear(to);
                    self.board[to] = a;
                    self.occ[ao].set(to);
                    if dr == COMMANDER {
                        lost_commander[1] = dow;
                    }
                }
                CombatOutcome::DefenderWon => {
                    if ar == COMMANDER {
                        lost_commander[0] = ao;
                    }
                }
                CombatOutcome::BothRemoved => {
                    self.occ[dow].clear(to);
                    self.board[to] = 0;
                    if ar == COMMANDER {
                        lost_commander[0] = ao;
                    }
                    if dr == COMMANDER {
                        lost_commander[1] = dow;
                    }
                }
            }
            Some(outcome)
        };
        self.steps += 1;
        self.quiet = if combat.is_some() { 0 } else { self.quiet + 1 };
        let seat = Seat::from_index(ao);
        if sink.on() {
            let (f, t) = (Station(from as u8), Station(to as u8));
            sink.push(|| Event::Moved { seat, from: f, to: t, path, combat });
        }
        for s in lost_commander {
            if s != usize::MAX && s != flag_taken {
                self.reveal_flag(s, sink);
            }
        }
        if self.variant == Variant::HiddenFront {
            if flag_taken != usize::MAX {
                self.turn = seat.partner();
                self.end(Status::SeatWon { winner: seat, reason: WinReason::FlagCaptured }, sink);
            } else {
                self.hf_end_step(seat, false, sink);
            }
            return;
        }
        if flag_taken != usize::MAX {
            self.eliminate(Seat::from_index(flag_taken), ElimReason::FlagCaptured, sink);
        }
        self.finish_turn(sink);
    }

    fn reveal_flag(&mut self, seat: usize, sink: &mut Sink) {
        if self.revealed[seat] {
            return;
        }
        self.revealed[seat] = true;
        if sink.on() {
            let mut at = None;
            self.occ[seat].for_each(|i| {
                if cell_rank(self.board[i]) == FLAG && at.is_none() {
                    at = Some(Station(i as u8));
                }
            });
            if let Some(station) = at {
                sink.push(|| Event::FlagRevealed { seat: Seat::from_index(seat), station });
            }
        }
    }

    fn eliminate(&mut self, seat: Seat, reason: ElimReason, sink: &mut Sink) {
        let i = seat.index();
        self.elim[i] = Some(reason);
        let occ = self.occ[i];
        let mut fallen = Vec::with_capacity(occ.count() as usize);
        occ.for_each(|s| {
            fallen.push((s as u8, self.board[s]));
            self.board[s] = 0;
        });
        self.fallen[i] = fallen;
        self.occ[i] = Bits::default();
        sink.push(|| Event::Eliminated { seat, reason });
        if let Some((by, _)) = self.offer {
            if by == seat {
                self.offer = None;
                sink.push(|| Event::DrawOfferExpired { seat });
            }
        }
        if let Some((by, mask)) = self.offer {
            self.offer = Some((by, mask & !(1 << i)));
        }
    }

    /// If a team has won (or, with `steps`, the step limit is reached) end the game.
    fn game_over_check(&mut self, sink: &mut Sink, steps: bool) -> bool {
        for team in [Team::NS, Team::EW] {
            let [a, b] = team.other().seats();
            if self.is_eliminated(a) && self.is_eliminated(b) {
                self.status = Status::Won { winner: team, reason: WinReason::Elimination };
            }
        }
        if matches!(self.status, Status::Ongoing) && steps && self.steps >= self.options.max_steps {
            self.status = Status::Draw { reason: DrawReason::StepLimit };
        }
        if !matches!(self.status, Status::Ongoing) {
            // `turn` becomes the live seat that would have moved next.
            let mut s = if steps { self.turn.next() } else { self.turn };
            while self.is_eliminated(s) {
                s = s.next();
            }
            self.turn = s;
            self.offer = None;
            let status = self.status;
            sink.push(|| Event::GameOver { status });
            return true;
        }
        false
    }

    /// End the game with `status` (offers end with it).
    fn end(&mut self, status: Status, sink: &mut Sink) {
        self.status = status;
        self.offer = None;
        sink.push(|| Event::GameOver { status });
    }

    /// Hidden Front: `mover`'s turn ended by a move (without a flag capture) or a timeout.
    /// An offer of the other side lapses; then, in the order of hidden-front.md §5: the other
    /// side without a legal move loses, a third timeout loses, 100 quiet steps draw.
    fn hf_end_step(&mut self, mover: Seat, timed_out: bool, sink: &mut Sink) {
        let next = mover.partner();
        if let Some((by, _)) = self.offer {
            if by == next {
                self.offer = None;
                sink.push(|| Event::DrawOfferExpired { seat: by });
            }
        }
        if timed_out && self.skips[mover.index()] >= HF_TIMEOUT_LIMIT && self.has_move(next) {
            self.turn = next;
            self.end(Status::SeatWon { winner: next, reason: WinReason::Timeouts }, sink);
        } else if self.quiet >= HF_QUIET_LIMIT && self.has_move(next) {
            self.turn = next;
            self.end(Status::Draw { reason: DrawReason::NoCombat }, sink);
        } else {
            self.hf_start_turn(next, sink);
        }
    }

    /// Hidden Front: begin `seat`'s turn; without a legal move it loses.
    fn hf_start_turn(&mut self, seat: Seat, sink: &mut Sink) {
        self.turn = seat;
        self.turns_started[seat.index()] += 1;
        if self.has_move(seat) {
            let steps = self.steps;
            sink.push(|| Event::Turn { seat, steps });
        } else {
            let winner = seat.partner();
            self.end(Status::SeatWon { winner, reason: WinReason::NoLegalMove }, sink);
        }
    }

    fn finish_turn(&mut self, sink: &mut Sink) {
        if !self.game_over_check(sink, true) {
            self.start_turn(self.turn.next(), sink);
        }
    }

    /// Begin the turn of the first live seat from `s` on (clockwise), eliminating seats
    /// without a legal move.
    fn start_turn(&mut self, mut s: Seat, sink: &mut Sink) {
        loop {
            while self.is_eliminated(s) {
                s = s.next();
            }
            self.turn = s;
            self.turns_started[s.index()] += 1;
            if let Some((by, _)) = self.offer {
                if by == s {
                    self.offer = None;
                    sink.push(|| Event::DrawOfferExpired { seat: s });
                }
            }
            if self.has_move(s) {
                let steps = self.steps;
                sink.push(|| Event::Turn { seat: s, steps });
                return;
            }
            self.eliminate(s, ElimReason::NoLegalMove, sink);
            if self.game_over_check(sink, false) {
                return;
            }
            s = s.next();
        }
    }
}

#[derive(Serialize, Deserialize)]
struct StatusJson {
    state: String,
    winner: Option<String>,
    reason: Option<String>,
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let j = match self {
            Status::Ongoing => StatusJson { state: "ongoing".into(), winner: None, reason: None },
            Status::Won { winner, reason } => StatusJson {
                state: "won".into(),
                winner: Some(format!("{winner:?}")),
                reason: Some(reason.code().into()),
            },
            Status::SeatWon { winner, reason } => StatusJson {
                state: "won".into(),
                winner: Some(winner.letter().into()),
                reason: Some(reason.code().into()),
            },
            Status::Draw { reason } => StatusJson {
                state: "draw".into(),
                winner: None,
                reason: Some(reason.code().into()),
            },
        };
        j.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let j = StatusJson::deserialize(d)?;
        let win = |code: Option<&str>| {
            [
                WinReason::Elimination,
                WinReason::FlagCaptured,
                WinReason::NoLegalMove,
                WinReason::Timeouts,
                WinReason::Surrender,
            ]
            .into_iter()
            .find(|r| Some(r.code()) == code)
        };
        let draw = |code: Option<&str>| {
            [DrawReason::StepLimit, DrawReason::Agreement, DrawReason::NoCombat]
                .into_iter()
                .find(|r| Some(r.code()) == code)
        };
        let reason = j.reason.as_deref();
        match (j.state.as_str(), j.winner.as_deref()) {
            ("ongoing", None) => Some(Status::Ongoing),
            ("won", Some("NS")) => Some(Status::Won {
                winner: Team::NS,
                reason: win(reason).unwrap_or(WinReason::Elimination),
            }),
            ("won", Some("EW")) => Some(Status::Won {
                winner: Team::EW,
                reason: win(reason).unwrap_or(WinReason::Elimination),
            }),
            ("won", Some(seat)) => {
                let mut cs = seat.chars();
                match (cs.next().and_then(Seat::from_letter), cs.next(), win(reason)) {
                    (Some(winner), None, Some(reason)) => Some(Status::SeatWon { winner, reason }),
                    _ => None,
                }
            }
            ("draw", None) => draw(reason).map(|reason| Status::Draw { reason }),
            _ => None,
        }
        .ok_or_else(|| D::Error::custom("invalid status"))
    }
}
