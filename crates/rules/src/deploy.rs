//! Deployment (布阵, rules.md §4; Hidden Front: hidden-front.md §3).
//!
//! Both games use the same local layout of a seat's region (`a1`..`e6`, row 1 the front), so one
//! set of placement rules serves both; Hidden Front adds that a mine may not stand in a
//! headquarters and ignores `bombs_front_row`. A deployment's game is that of its stations.
use crate::board::{Seat, Station, Variant};
use crate::options::Options;
use crate::piece::Rank;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a deployment or a swap is refused. Each has a stable snake_case `code()`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[serde(tag = "code", rename_all = "snake_case")]
pub enum DeployError {
    #[error("the flag must be in a headquarters")]
    FlagNotInHeadquarters { station: Station },
    #[error("mines must be in the last two rows")]
    MineOutsideBackRows { station: Station },
    #[error("mines may not be in a headquarters")]
    MineInHeadquarters { station: Station },
    #[error("bombs may not be in the front row")]
    BombInFrontRow { station: Station },
    #[error("pieces may not start in a camp")]
    PieceInCamp { station: Station },
    #[error("wrong number of pieces of one kind")]
    WrongCount { rank: Rank, expected: u8, found: u8 },
    #[error("station is outside the seat's region")]
    OutsideRegion { station: Station },
    #[error("a non-camp station of the region is empty")]
    EmptyStation { station: Station },
    #[error("there is no piece of this seat at that station")]
    NoPieceThere { station: Station },
}

impl DeployError {
    pub fn code(&self) -> &'static str {
        match self {
            DeployError::FlagNotInHeadquarters { .. } => "flag_not_in_headquarters",
            DeployError::MineOutsideBackRows { .. } => "mine_outside_back_rows",
            DeployError::MineInHeadquarters { .. } => "mine_in_headquarters",
            DeployError::BombInFrontRow { .. } => "bomb_in_front_row",
            DeployError::PieceInCamp { .. } => "piece_in_camp",
            DeployError::WrongCount { .. } => "wrong_count",
            DeployError::OutsideRegion { .. } => "outside_region",
            DeployError::EmptyStation { .. } => "empty_station",
            DeployError::NoPieceThere { .. } => "no_piece_there",
        }
    }
}

/// One seat's deployment: 25 pieces on the 25 non-camp stations of its region.
/// JSON: `{"seat": "S", "pieces": {"Sa1": "9", ...}}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Deployment {
    pub seat: Seat,
    pub pieces: BTreeMap<Station, Rank>,
}

/// A seat-independent formation (saved in an account): local station name (`"a1"`..`"e6"`) → rank.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Formation(pub BTreeMap<String, Rank>);

impl Deployment {
    /// The game this deployment is for: that of its first station (four-player if empty).
    pub fn variant(&self) -> Variant {
        self.pieces.keys().next().map_or(Variant::FourPlayer, |s| s.variant())
    }
    /// Check every constraint of rules.md §4 (or hidden-front.md §3 for a Hidden Front
    /// deployment, see [`Deployment::variant`]); the first failure found is returned.
    pub fn validate(&self, options: &Options) -> Result<(), DeployError> {
        self.validate_for(self.variant(), options)
    }
    /// Check every constraint of `variant`'s deployment rules; the first failure found is
    /// returned.
    ///
    /// Order of checks: stations outside the region, pieces in camps, piece counts, empty
    /// stations, then flag / mine / bomb placement (in station order).
    pub fn validate_for(&self, variant: Variant, options: &Options) -> Result<(), DeployError> {
        let board = variant.board();
        for &st in self.pieces.keys() {
            if st.region() != Some(self.seat) || !board.contains(st) {
                return Err(DeployError::OutsideRegion { station: st });
            }
        }
        if !variant.has_seat(self.seat) {
            let station = Station::of_seat(self.seat, 0, 1);
            return Err(DeployError::OutsideRegion { station });
        }
        for &st in self.pieces.keys() {
            if st.is_camp() {
                return Err(DeployError::PieceInCamp { station: st });
            }
        }
        let mut counts = [0u8; 12];
        for &r in self.pieces.values() {
            counts[r as usize] += 1;
        }
        for r in Rank::ALL {
            if counts[r as usize] != r.count() {
                return Err(DeployError::WrongCount {
                    rank: r,
                    expected: r.count(),
                    found: counts[r as usize],
                });
            }
        }
        for st in board.deployment_zone(self.seat) {
            if !self.pieces.contains_key(&st) {
                return Err(DeployError::EmptyStation { station: st });
            }
        }
        for (&st, &r) in &self.pieces {
            placement_ok(st, r, options)?;
        }
        Ok(())
    }
    /// A uniformly random legal four-player deployment (see [`Deployment::random_for`]).
    pub fn random<R: rand::Rng + ?Sized>(seat: Seat, options: &Options, rng: &mut R) -> Deployment {
        Deployment::random_for(Variant::FourPlayer, seat, options, rng)
    }
    /// A uniformly random legal deployment of `seat` (which must play in `variant`).
    ///
    /// The flag goes to one of the two headquarters, the mines to three of the remaining
    /// allowed row 5–6 stations, the bombs to two of the remaining allowed stations and the
    /// other pieces are shuffled over the rest: every legal deployment has the same probability.
    pub fn random_for<R: rand::Rng + ?Sized>(
        variant: Variant,
        seat: Seat,
        options: &Options,
        rng: &mut R,
    ) -> Deployment {
        use rand::seq::SliceRandom;
        let mut free: Vec<Station> = variant.board().deployment_zone(seat).collect();
        let mut pieces = BTreeMap::new();
        let take =
            |free: &mut Vec<Station>, pred: &dyn Fn(Station) -> bool, rng: &mut R| -> Station {
                let cands: Vec<usize> = (0..free.len()).filter(|&i| pred(free[i])).collect();
                let i = cands[rng.random_range(0..cands.len())];
                free.swap_remove(i)
            };
        let st = take(&mut free, &|s: Station| s.is_headquarters(), rng);
        pieces.insert(st, Rank::Flag);
        for _ in 0..Rank::Mine.count() {
            let st =
                take(&mut free, &|s: Station| placement_ok(s, Rank::Mine, options).is_ok(), rng);
            pieces.insert(st, Rank::Mine);
        }
        let front_ok = options.bombs_front_row && variant == Variant::FourPlayer;
        for _ in 0..Rank::Bomb.count() {
            let st = take(&mut free, &|s: Station| front_ok || s.row() != 1, rng);
            pieces.insert(st, Rank::Bomb);
        }
        let mut rest: Vec<Rank> = Rank::full_set()
            .into_iter()
            .filter(|r| !matches!(r, Rank::Flag | Rank::Mine | Rank::Bomb))
            .collect();
        rest.shuffle(rng);
        free.sort();
        for (st, r) in free.into_iter().zip(rest) {
            pieces.insert(st, r);
        }
        Deployment { seat, pieces }
    }
    /// Swap the pieces on two of this seat's stations. On error the deployment is unchanged.
    pub fn swap(&mut self, a: Station, b: Station, options: &Options) -> Result<(), DeployError> {
        for st in [a, b] {
            if st.region() != Some(self.seat) {
                return Err(DeployError::OutsideRegion { station: st });
            }
        }
        let ra = *self.pieces.get(&a).ok_or(DeployError::NoPieceThere { station: a })?;
        let rb = *self.pieces.get(&b).ok_or(DeployError::NoPieceThere { station: b })?;
        placement_ok(b, ra, options)?;
        placement_ok(a, rb, options)?;
        self.pieces.insert(a, rb);
        self.pieces.insert(b, ra);
        Ok(())
    }
    pub fn to_formation(&self) -> Formation {
        Formation(
            self.pieces
                .iter()
                .map(|(st, r)| (format!("{}{}", (b'a' + st.col()) as char, st.row()), *r))
                .collect(),
        )
    }
    /// Place a formation for a seat of the four-player game and validate it.
    pub fn from_formation(
        seat: Seat,
        f: &Formation,
        options: &Options,
    ) -> Result<Deployment, DeployError> {
        Deployment::from_formation_for(Variant::FourPlayer, seat, f, options)
    }
    /// Place a formation for a seat of `variant` and validate it. (Both games share the local
    /// station names, so one formation fits either.)
    pub fn from_formation_for(
        variant: Variant,
        seat: Seat,
        f: &Formation,
        options: &Options,
    ) -> Result<Deployment, DeployError> {
        let board = variant.board();
        // A name that is not a station of the region: report the seat's first station.
        let first = board.station(seat, 0, 1).unwrap_or(Station::of_seat(seat, 0, 1));
        let mut pieces = BTreeMap::new();
        for (name, &r) in &f.0 {
            let b = name.as_bytes();
            let st = (b.len() == 2 && b[0].is_ascii_lowercase() && b[1].is_ascii_digit())
                .then(|| board.station(seat, b[0] - b'a', b[1] - b'0'))
                .flatten()
                .ok_or(DeployError::OutsideRegion { station: first })?;
            pieces.insert(st, r);
        }
        let d = Deployment { seat, pieces };
        d.validate_for(variant, options)?;
        Ok(d)
    }
}

/// Whether rank `r` may stand on `st` (flag, mine and bomb placement rules of its board).
fn placement_ok(st: Station, r: Rank, options: &Options) -> Result<(), DeployError> {
    let hidden_front = st.variant() == Variant::HiddenFront;
    match r {
        Rank::Flag if !st.is_headquarters() => {
            Err(DeployError::FlagNotInHeadquarters { station: st })
        }
        Rank::Mine if st.row() < 5 => Err(DeployError::MineOutsideBackRows { station: st }),
        Rank::Mine if hidden_front && st.is_headquarters() => {
            Err(DeployError::MineInHeadquarters { station: st })
        }
        Rank::Bomb if st.row() == 1 && (hidden_front || !options.bombs_front_row) => {
            Err(DeployError::BombInFrontRow { station: st })
        }
        _ if st.is_camp() => Err(DeployError::PieceInCamp { station: st }),
        _ => Ok(()),
    }
}
