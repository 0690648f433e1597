//! The battle phase (rules.md §1, §5–§7).
use crate::bits::Bits;
use crate::board::{tables, Seat, Station, Tables, Team};
use crate::deploy::{DeployError, Deployment};
use crate::options::{FlagCapture, MineRule, Options};
use crate::piece::{Piece, Rank};
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
    /// Both seats of the other team were eliminated.
    Elimination,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DrawReason {
    StepLimit,
    Agreement,
}

/// The state of the game. JSON: `{"state": "ongoing"|"won"|"draw", "winner": "NS"|"EW"|null, "reason": "..."|null}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Ongoing,
    Won { winner: Team, reason: WinReason },
    Draw { reason: DrawReason },
}

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
#[inline(always)]
fn cell_team(c: u8) -> u8 {
    (c >> 4) & 1
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
    pub(crate) options: Options,
    pub(crate) board: [u8; Station::COUNT],
    pub(crate) occ: [Bits; 4],
    /// The seat to move (after the end: the seat that would have moved).
    pub(crate) turn: Seat,
    pub(crate) status: Status,
    pub(crate) steps: u32,
    pub(crate) skips: [u32; 4],
    pub(crate) elim: [Option<ElimReason>; 4],
    pub(crate) revealed: [bool; 4],
    /// Pending offer: offering seat and a bitmask of seats that accepted.
    pub(crate) offer: Option<(Seat, u8)>,
    /// Number of turns that began for each seat.
    pub(crate) turns_started: [u32; 4],
    /// `turns_started` of the seat when it last offered a draw.
    pub(crate) last_offer: [Option<u32>; 4],
    pub(crate) initial: Vec<Event>,
}

/// Connected components of empty rail stations, built on demand during one generation.
struct Comps {
    label: [u8; Station::COUNT],
    n: usize,
    /// Per component: its stations, and the occupied rail stations next to it.
    sets: [(Bits, Bits); 74],
}

impl Comps {
    #[inline(always)]
    fn new() -> Comps {
        Comps { label: [u8::MAX; Station::COUNT], n: 0, sets: [(Bits([0; 3]), Bits([0; 3])); 74] }
    }
    /// The component of the empty rail station `v`: (members, occupied border).
    #[inline]
    fn of(&mut self, g: &Game, t: &Tables, v: usize) -> (Bits, Bits) {
        let l = self.label[v] as usize;
        if l < self.n {
            return self.sets[l];
        }
        let id = self.n;
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
        self.sets[id] = (members, border);
        self.n += 1;
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
    pub(crate) fn empty(options: Options) -> Game {
        Game {
            options,
            board: [0; Station::COUNT],
            occ: [Bits::default(); 4],
            turn: Seat::N,
            status: Status::Ongoing,
            steps: 0,
            skips: [0; 4],
            elim: [None; 4],
            revealed: [false; 4],
            offer: None,
            turns_started: [0; 4],
            last_offer: [None; 4],
            initial: Vec::new(),
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

    /// Start the battle from four validated deployments (index = `Seat::index()`); North moves first.
    /// Seats with no legal move at the start are eliminated at once (see `initial_events`).
    pub fn new(options: Options, deployments: &[Deployment; 4]) -> Result<Game, DeployError> {
        let mut g = Game::empty(options);
        for (i, d) in deployments.iter().enumerate() {
            let seat = Seat::from_index(i);
            d.validate(&options)?;
            if d.seat != seat {
                let st = *d.pieces.keys().next().expect("validated deployment has pieces");
                return Err(DeployError::OutsideRegion { station: st });
            }
            for (&st, &rank) in &d.pieces {
                g.put(st, Piece { owner: seat, rank });
            }
        }
        let mut ev = Vec::new();
        g.start_turn(Seat::N, &mut Sink { events: Some(&mut ev) });
        g.initial = ev;
        Ok(g)
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
        (self.status == Status::Ongoing).then_some(self.turn)
    }
    pub fn status(&self) -> Status {
        self.status
    }
    pub fn is_over(&self) -> bool {
        self.status() != Status::Ongoing
    }
    pub fn steps(&self) -> u32 {
        self.steps
    }
    pub fn skips(&self, seat: Seat) -> u32 {
        self.skips[seat.index()]
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
    /// Whether `seat` may offer a draw now (live, no offer pending, 10-own-turn rule).
    pub fn can_offer_draw(&self, seat: Seat) -> bool {
        self.offer_error(seat).is_none()
    }
    fn offer_error(&self, seat: Seat) -> Option<RuleError> {
        if self.is_over() {
            return Some(RuleError::GameOver);
        }
        if self.is_eliminated(seat) {
            return Some(RuleError::SeatEliminated);
        }
        if self.offer.is_some() {
            return Some(RuleError::DrawOfferPending);
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

    /// May a piece of `rank`/`team` end its move on `d`?
    #[inline(always)]
    fn can_enter(&self, t: &Tables, rank: u8, team: u8, d: usize) -> bool {
        // a piece the `flag_capture` option forbids never enters an enemy headquarters, whatever
        // it holds (rules.md §5: by station, so the legal moves do not tell where a flag is)
        if t.hq[d] && (d / 30) as u8 & 1 != team && !self.capture_ok(rank) {
            return false;
        }
        let c = self.board[d];
        if c == 0 {
            return true;
        }
        if cell_team(c) == team || t.camp[d] {
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
        let team = cell_team(c);
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
        let team = self.occ[me].or(self.occ[(me + 2) & 3]);
        let enemy = self.occ[(me + 1) & 3].or(self.occ[(me + 3) & 3]);
        let base = team.or(enemy.and(t.camp_mask));
        let mut flags = Bits::default();
        if self.options.flag_capture != FlagCapture::Any {
            enemy.for_each(|i| {
                if cell_rank(self.board[i]) == FLAG {
                    flags.set(i);
                }
            });
            for seat in [(me + 1) & 3, (me + 3) & 3] {
                for i in seat * 30..seat * 30 + 30 {
                    if t.hq[i] {
                        flags.set(i);
                    }
                }
            }
        }
        (base, flags)
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
                if self.is_eliminated(seat) {
                    return Err(RuleError::SeatEliminated);
                }
                let sink = &mut Sink { events: Some(&mut ev) };
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
                self.last_offer[seat.index()] = Some(self.turns_started[seat.index()]);
                ev.push(Event::DrawOffered { seat });
            }
            Action::AcceptDraw { seat } => {
                let (by, mask) = self.answer_check(seat)?;
                let mask = mask | 1 << seat.index();
                self.offer = Some((by, mask));
                ev.push(Event::DrawAccepted { seat });
                let all = Seat::ALL
                    .into_iter()
                    .filter(|&s| s != by && !self.is_eliminated(s))
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
        if self.is_eliminated(seat) {
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
        let skips = self.skips[i];
        sink.push(|| Event::Skipped { seat, skips });
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
        occ.for_each(|s| self.board[s] = 0);
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
        if self.status == Status::Ongoing && steps && self.steps >= self.options.max_steps {
            self.status = Status::Draw { reason: DrawReason::StepLimit };
        }
        if self.status != Status::Ongoing {
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
    winner: Option<Team>,
    reason: Option<String>,
}

impl Serialize for Status {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let j = match self {
            Status::Ongoing => StatusJson { state: "ongoing".into(), winner: None, reason: None },
            Status::Won { winner, reason } => StatusJson {
                state: "won".into(),
                winner: Some(*winner),
                reason: Some(match reason {
                    WinReason::Elimination => "elimination".into(),
                }),
            },
            Status::Draw { reason } => StatusJson {
                state: "draw".into(),
                winner: None,
                reason: Some(match reason {
                    DrawReason::StepLimit => "step_limit".into(),
                    DrawReason::Agreement => "agreement".into(),
                }),
            },
        };
        j.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Status {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let j = StatusJson::deserialize(d)?;
        match (j.state.as_str(), j.winner, j.reason.as_deref()) {
            ("ongoing", None, _) => Ok(Status::Ongoing),
            ("won", Some(winner), _) => Ok(Status::Won { winner, reason: WinReason::Elimination }),
            ("draw", None, Some("step_limit")) => {
                Ok(Status::Draw { reason: DrawReason::StepLimit })
            }
            ("draw", None, Some("agreement")) => Ok(Status::Draw { reason: DrawReason::Agreement }),
            _ => Err(D::Error::custom("invalid status")),
        }
    }
}
