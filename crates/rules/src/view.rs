//! What a viewer may see (rules.md §8). A [`View`] can only be made by [`crate::Game::view`]
//! (or from a position), and every rank in it is one its viewer may see: the hidden ones are not
//! there at all (`SeenPiece::rank` is `None`).
use crate::board::{Seat, Station, Variant};
use crate::game::Status;
use crate::options::{InfoMode, Options};
use crate::piece::{Piece, Rank};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A set of seats (bitmask), for a person controlling one or two seats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct SeatSet(pub u8);

impl SeatSet {
    pub fn one(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.index())
    }
    pub fn with(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 | 1 << seat.index())
    }
    pub fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat.index()) != 0
    }
    pub fn seats(self) -> impl Iterator<Item = Seat> {
        Seat::ALL.into_iter().filter(move |s| self.contains(*s))
    }
}

/// Who is looking.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Viewer {
    /// A player controlling these seats (one, or two for dual control).
    Seats(SeatSet),
    /// A spectator: sees what a player of neither team would.
    Spectator,
}

/// A piece as a viewer sees it: owner always, rank only when visible. Serialized `"S9"` or `"S?"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SeenPiece {
    owner: Seat,
    rank: Option<Rank>,
}

impl SeenPiece {
    pub(crate) fn new(owner: Seat, rank: Option<Rank>) -> SeenPiece {
        SeenPiece { owner, rank }
    }
    pub fn owner(&self) -> Seat {
        self.owner
    }
    pub fn rank(&self) -> Option<Rank> {
        self.rank
    }
}

impl Serialize for SeenPiece {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.rank {
            Some(rank) => s.collect_str(&Piece { owner: self.owner, rank }),
            None => s.collect_str(&format_args!("{}?", self.owner.letter())),
        }
    }
}

impl<'de> Deserialize<'de> for SeenPiece {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        let hidden = text.strip_suffix('?').and_then(|o| {
            let mut c = o.chars();
            let seat = Seat::from_letter(c.next()?)?;
            c.next().is_none().then_some(SeenPiece { owner: seat, rank: None })
        });
        hidden
            .or_else(|| {
                Piece::parse(&text).map(|p| SeenPiece { owner: p.owner, rank: Some(p.rank) })
            })
            .ok_or_else(|| serde::de::Error::custom(format!("not a piece: {text:?}")))
    }
}

/// A redacted picture of the whole game for one viewer.
///
/// The engine builds it (`Game::view`) only with the ranks the viewer may see. `Deserialize` is
/// for clients and tests reading the wire format; the server only ever sends views it built.
///
/// On the wire each game shows its own counters and options: the four-player game `skips`,
/// Hidden Front `timeouts` and `quiet_steps` ([`Options::shown`]).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawView")]
#[non_exhaustive]
pub struct View {
    /// The game (omitted for the four-player game).
    pub variant: Variant,
    pub turn: Option<Seat>,
    pub pieces: BTreeMap<Station, SeenPiece>,
    pub options: Options,
    pub eliminated: Vec<Seat>,
    /// Skips per seat (Hidden Front: timeouts, of S and N; written `"timeouts"`).
    pub skips: BTreeMap<Seat, u32>,
    pub steps: u32,
    /// Hidden Front: steps since the last combat (omitted for the four-player game).
    pub quiet_steps: Option<u32>,
    pub status: Status,
    /// Seats whose flag was revealed (commander removed).
    pub flags_revealed: Vec<Seat>,
    /// Pending draw offer: the offering seat.
    pub draw_offer: Option<Seat>,
    /// Once the game is over (the full reveal): per eliminated seat, the pieces it had on the
    /// board when it was eliminated, where they stood. Empty while the game is played.
    pub fallen: BTreeMap<Seat, BTreeMap<Station, SeenPiece>>,
}

/// The wire form of a [`View`], written from borrowed parts (no copy of the pieces).
#[derive(Serialize)]
struct ViewOut<'a> {
    #[serde(skip_serializing_if = "Variant::is_four_player")]
    variant: Variant,
    turn: Option<Seat>,
    pieces: &'a BTreeMap<Station, SeenPiece>,
    options: crate::options::ShownOptions,
    eliminated: &'a [Seat],
    #[serde(skip_serializing_if = "Option::is_none")]
    skips: Option<&'a BTreeMap<Seat, u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeouts: Option<&'a BTreeMap<Seat, u32>>,
    steps: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    quiet_steps: Option<u32>,
    status: &'a Status,
    flags_revealed: &'a [Seat],
    draw_offer: Option<Seat>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    fallen: &'a BTreeMap<Seat, BTreeMap<Station, SeenPiece>>,
}

impl Serialize for View {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (skips, timeouts) = crate::options::counters_shown(self.variant, &self.skips);
        ViewOut {
            variant: self.variant,
            turn: self.turn,
            pieces: &self.pieces,
            options: self.options.shown(self.variant),
            eliminated: &self.eliminated,
            skips,
            timeouts,
            steps: self.steps,
            quiet_steps: self.quiet_steps,
            status: &self.status,
            flags_revealed: &self.flags_revealed,
            draw_offer: self.draw_offer,
            fallen: &self.fallen,
        }
        .serialize(s)
    }
}

/// What [`View`] is read from: either game's counters, options as the game shows them.
#[derive(Deserialize)]
struct RawView {
    #[serde(default)]
    variant: Variant,
    turn: Option<Seat>,
    pieces: BTreeMap<Station, SeenPiece>,
    #[serde(default)]
    options: Option<crate::options::OptionChanges>,
    #[serde(default)]
    eliminated: Vec<Seat>,
    #[serde(default)]
    skips: BTreeMap<Seat, u32>,
    #[serde(default)]
    timeouts: BTreeMap<Seat, u32>,
    #[serde(default)]
    steps: u32,
    #[serde(default)]
    quiet_steps: Option<u32>,
    status: Status,
    #[serde(default)]
    flags_revealed: Vec<Seat>,
    #[serde(default)]
    draw_offer: Option<Seat>,
    #[serde(default)]
    fallen: BTreeMap<Seat, BTreeMap<Station, SeenPiece>>,
}

impl TryFrom<RawView> for View {
    type Error = String;
    fn try_from(r: RawView) -> Result<View, String> {
        let (options, skips) =
            crate::options::read_shown(r.variant, r.options, r.skips, r.timeouts)?;
        Ok(View {
            variant: r.variant,
            turn: r.turn,
            pieces: r.pieces,
            options,
            eliminated: r.eliminated,
            skips,
            steps: r.steps,
            quiet_steps: r.quiet_steps,
            status: r.status,
            flags_revealed: r.flags_revealed,
            draw_offer: r.draw_offer,
            fallen: r.fallen,
        })
    }
}

impl crate::game::Game {
    /// The view of `viewer`. When the game is over everything is revealed.
    pub fn view(&self, viewer: Viewer) -> View {
        let mut pieces = BTreeMap::new();
        let seats = self.variant.seats();
        for st in self.variant.board().stations() {
            if let Some(seen) = self.seen_at(st, viewer) {
                pieces.insert(st, seen);
            }
        }
        View {
            variant: self.variant,
            turn: self.turn(),
            pieces,
            options: self.options,
            eliminated: seats.iter().copied().filter(|&s| self.is_eliminated(s)).collect(),
            skips: self.shown_skips(),
            steps: self.steps(),
            quiet_steps: self.shown_quiet(),
            status: self.status(),
            flags_revealed: Seat::ALL.into_iter().filter(|&s| self.flag_revealed(s)).collect(),
            draw_offer: self.offer.map(|(s, _)| s),
            fallen: if self.is_over() { self.fallen_pieces() } else { BTreeMap::new() },
        }
    }

    /// The piece on `st` as `viewer` sees it: its rank only where [`Game::may_see`] allows. The
    /// one redaction of a piece on the board, for [`Game::view`] and [`Game::delta_since`].
    pub(crate) fn seen_at(&self, st: Station, viewer: Viewer) -> Option<SeenPiece> {
        let p = self.piece_at(st)?;
        Some(SeenPiece::new(p.owner, self.may_see(viewer, p).then_some(p.rank)))
    }

    /// A view's `skips`: each seat of the variant and its count.
    pub(crate) fn shown_skips(&self) -> BTreeMap<Seat, u32> {
        self.variant.seats().iter().map(|&s| (s, self.skips(s))).collect()
    }

    /// A view's `quiet_steps` (Hidden Front only).
    pub(crate) fn shown_quiet(&self) -> Option<u32> {
        (self.variant == Variant::HiddenFront).then_some(self.quiet)
    }

    /// Every eliminated seat's pieces as they stood when it was eliminated (all ranks: only
    /// for the full reveal of a finished game).
    fn fallen_pieces(&self) -> BTreeMap<Seat, BTreeMap<Station, SeenPiece>> {
        let mut out = BTreeMap::new();
        for &seat in self.variant.seats() {
            let pieces: BTreeMap<Station, SeenPiece> = self
                .fallen(seat)
                .map(|(st, p)| (st, SeenPiece::new(p.owner, Some(p.rank))))
                .collect();
            if !pieces.is_empty() {
                out.insert(seat, pieces);
            }
        }
        out
    }

    /// Whether `viewer` may see the rank of `piece` now (rules.md §8; Hidden Front ignores
    /// `info_mode`: each side sees its own ranks only, hidden-front.md §7).
    pub fn may_see(&self, viewer: Viewer, piece: Piece) -> bool {
        if self.is_over() {
            return true;
        }
        let public = self.shown_to_all(piece);
        public || owner_shown_to(self.shown_info_mode(), viewer, piece.owner)
    }

    /// The info mode that decides who sees what (Hidden Front: always four-dark).
    fn shown_info_mode(&self) -> InfoMode {
        match self.variant {
            Variant::FourPlayer => self.options.info_mode,
            Variant::HiddenFront => InfoMode::FourDark,
        }
    }

    /// Whether every viewer may see `piece`'s rank while the game goes on: all open, or a flag
    /// its seat's fallen commander revealed.
    fn shown_to_all(&self, piece: Piece) -> bool {
        self.shown_info_mode() == InfoMode::AllOpen
            || (piece.rank == Rank::Flag && self.flag_revealed(piece.owner))
    }

    /// What a move about to be made moves and meets, for rebuilding each viewer's game log
    /// later ([`MoveWitness::seen`]); `None` unless there is a piece on `from`.
    pub fn witness(&self, from: Station, to: Station) -> Option<MoveWitness> {
        let a = self.piece_at(from)?;
        let d = self.piece_at(to);
        Some(MoveWitness {
            info_mode: self.shown_info_mode(),
            attacker: (a, self.shown_to_all(a)),
            defender: d.map(|d| (d, self.shown_to_all(d))),
        })
    }
}

/// Whether a viewer sees the ranks of `owner`'s pieces as their own (their seats, and the
/// partner's in double-open) — the part of [`Game::may_see`] that depends on who looks.
fn owner_shown_to(info_mode: InfoMode, viewer: Viewer, owner: Seat) -> bool {
    match viewer {
        Viewer::Spectator => false,
        Viewer::Seats(set) => {
            set.contains(owner)
                || (info_mode == InfoMode::DoubleOpen && set.contains(owner.partner()))
        }
    }
}

/// The pieces of one move as they stood when it was made (the truth: never sent), kept so that
/// a viewer who arrives later reads the log as those who watched it live read it: each piece
/// redacted by [`Game::may_see`]'s rule at the time of the move ([`MoveWitness::seen`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveWitness {
    info_mode: InfoMode,
    /// the moving piece, and whether every viewer saw its rank then
    attacker: (Piece, bool),
    /// the piece it met, if any, likewise
    defender: Option<(Piece, bool)>,
}

impl MoveWitness {
    /// The moving piece and the one it met, as `viewer` saw them when the move was made.
    pub fn seen(&self, viewer: Viewer) -> (SeenPiece, Option<SeenPiece>) {
        let shown = |(p, public): (Piece, bool)| {
            let see = public || owner_shown_to(self.info_mode, viewer, p.owner);
            SeenPiece::new(p.owner, see.then_some(p.rank))
        };
        (shown(self.attacker), self.defender.map(shown))
    }
}
