//! Deployment (布阵, rules.md §4).
use crate::board::{Seat, Station};
use crate::options::Options;
use crate::piece::Rank;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Why a deployment or a swap is refused. Each has a stable snake_case `code()`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
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
    pub fn validate(&self, options: &Options) -> Result<(), DeployError> {
        todo!()
    }
    /// A uniformly random legal deployment.
    pub fn random<R: rand::Rng + ?Sized>(seat: Seat, options: &Options, rng: &mut R) -> Deployment {
        todo!()
    }
    /// Swap the pieces on two of this seat's stations. On error the deployment is unchanged.
    pub fn swap(&mut self, a: Station, b: Station, options: &Options) -> Result<(), DeployError> {
        todo!()
    }
    pub fn to_formation(&self) -> Formation {
        todo!()
    }
    /// Place a formation for a seat and validate it.
    pub fn from_formation(seat: Seat, f: &Formation, options: &Options) -> Result<Deployment, DeployError> {
        todo!()
    }
}
