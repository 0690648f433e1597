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
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct View {
    /// The game (omitted for the four-player game).
    #[serde(default, skip_serializing_if = "Variant::is_four_player")]
    pub variant: Variant,
    pub turn: Option<Seat>,
    pub pieces: BTreeMap<Station, SeenPiece>,
    pub options: Options,
    pub eliminated: Vec<Seat>,
    /// Skips per seat (Hidden Front: timeouts, of S and N).
    pub skips: BTreeMap<Seat, u32>,
    pub steps: u32,
    /// Hidden Front: steps since the last combat (omitted for the four-player game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quiet_steps: Option<u32>,
    pub status: Status,
    /// Seats whose flag was revealed (commander removed).
    pub flags_revealed: Vec<Seat>,
    /// Pending draw offer: the offering seat.
    pub draw_offer: Option<Seat>,
}

impl crate::game::Game {
    /// The view of `viewer`. When the game is over everything is revealed.
    pub fn view(&self, viewer: Viewer) -> View {
        let mut pieces = BTreeMap::new();
        let seats = self.variant.seats();
        for st in self.variant.board().stations() {
            if let Some(p) = self.piece_at(st) {
                let rank = self.may_see(viewer, p).then_some(p.rank);
                pieces.insert(st, SeenPiece::new(p.owner, rank));
            }
        }
        View {
            variant: self.variant,
            turn: self.turn(),
            pieces,
            options: self.options,
            eliminated: seats.iter().copied().filter(|&s| self.is_eliminated(s)).collect(),
            skips: seats.iter().map(|&s| (s, self.skips(s))).collect(),
            steps: self.steps(),
            quiet_steps: (self.variant == Variant::HiddenFront).then_some(self.quiet),
            status: self.status(),
            flags_revealed: Seat::ALL.into_iter().filter(|&s| self.flag_revealed(s)).collect(),
            draw_offer: self.offer.map(|(s, _)| s),
        }
    }

    /// Whether `viewer` may see the rank of `piece` now (rules.md §8; Hidden Front ignores
    /// `info_mode`: each side sees its own ranks only, hidden-front.md §7).
    pub fn may_see(&self, viewer: Viewer, piece: Piece) -> bool {
        if self.is_over() {
            return true;
        }
        let info_mode = match self.variant {
            Variant::FourPlayer => self.options.info_mode,
            Variant::HiddenFront => InfoMode::FourDark,
        };
        if info_mode == InfoMode::AllOpen {
            return true;
        }
        if piece.rank == Rank::Flag && self.flag_revealed(piece.owner) {
            return true;
        }
        match viewer {
            Viewer::Spectator => false,
            Viewer::Seats(set) => {
                set.contains(piece.owner)
                    || (info_mode == InfoMode::DoubleOpen && set.contains(piece.owner.partner()))
            }
        }
    }
}
