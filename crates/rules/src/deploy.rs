//! Deployment (布阵, rules.md §4).
use crate::board::{Seat, Station};
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
    #[error("mines must be in rows 5-6")]
    MineOutsideBackRows { station: Station },
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
    /// Check every constraint of rules.md §4; the first failure found is returned.
    ///
    /// Order of checks: stations outside the region, pieces in camps, piece counts, empty
    /// stations, then flag / mine / bomb placement (in station order).
    pub fn validate(&self, options: &Options) -> Result<(), DeployError> {
        for &st in self.pieces.keys() {
            if st.region() != Some(self.seat) {
                return Err(DeployError::OutsideRegion { station: st });
            }
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
        for row in 1..=6u8 {
            for col in 0..5u8 {
                let st = Station::of_seat(self.seat, col, row);
                if !st.is_camp() && !self.pieces.contains_key(&st) {
                    return Err(DeployError::EmptyStation { station: st });
                }
            }
        }
        for (&st, &r) in &self.pieces {
            placement_ok(st, r, options)?;
        }
        Ok(())
    }
    /// A uniformly random legal deployment.
    ///
    /// The flag goes to one of the two headquarters, the mines to three of the nine remaining
    /// row 5–6 stations, the bombs to two of the remaining allowed stations and the other pieces
    /// are shuffled over the rest: every legal deployment has the same probability.
    pub fn random<R: rand::Rng + ?Sized>(seat: Seat, options: &Options, rng: &mut R) -> Deployment {
        use rand::seq::SliceRandom;
        let mut free: Vec<Station> = (1..=6u8)
            .flat_map(|row| (0..5u8).map(move |col| (col, row)))
            .map(|(c, r)| Station::of_seat(seat, c, r))
            .filter(|s| !s.is_camp())
            .collect();
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
            let st = take(&mut free, &|s: Station| s.row() >= 5, rng);
            pieces.insert(st, Rank::Mine);
        }
        let front_ok = options.bombs_front_row;
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
    /// Place a formation for a seat and validate it.
    pub fn from_formation(
        seat: Seat,
        f: &Formation,
        options: &Options,
    ) -> Result<Deployment, DeployError> {
        let mut pieces = BTreeMap::new();
        for (name, &r) in &f.0 {
            let b = name.as_bytes();
            let st =
                (b.len() == 2 && (b'a'..=b'e').contains(&b[0]) && (b'1'..=b'6').contains(&b[1]))
                    .then(|| Station::of_seat(seat, b[0] - b'a', b[1] - b'0'));
            match st {
                Some(st) => {
                    pieces.insert(st, r);
                }
                // A name that is not a station of the region: report the seat's first station.
                None => {
                    return Err(DeployError::OutsideRegion {
                        station: Station::of_seat(seat, 0, 1),
                    });
                }
            }
        }
        let d = Deployment { seat, pieces };
        d.validate(options)?;
        Ok(d)
    }
}

/// Whether rank `r` may stand on `st` (flag, mine and bomb placement rules).
fn placement_ok(st: Station, r: Rank, options: &Options) -> Result<(), DeployError> {
    match r {
        Rank::Flag if !st.is_headquarters() => {
            Err(DeployError::FlagNotInHeadquarters { station: st })
        }
        Rank::Mine if st.row() < 5 => Err(DeployError::MineOutsideBackRows { station: st }),
        Rank::Bomb if st.row() == 1 && !options.bombs_front_row => {
            Err(DeployError::BombInFrontRow { station: st })
        }
        _ if st.is_camp() => Err(DeployError::PieceInCamp { station: st }),
        _ => Ok(()),
    }
}
