//! Pieces (rules.md §3).
use crate::board::Seat;
use serde::{Deserialize, Serialize};

/// The twelve kinds of piece. Serialized by its code: `"9"`..`"1"`, `"B"`, `"M"`, `"F"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rank {
    /// 军旗
    Flag,
    /// 地雷
    Mine,
    /// 炸弹
    Bomb,
    /// 工兵 (1)
    Engineer,
    /// 排长 (2)
    Lieutenant,
    /// 连长 (3)
    Captain,
    /// 营长 (4)
    Major,
    /// 团长 (5)
    Colonel,
    /// 旅长 (6)
    Brigadier,
    /// 师长 (7)
    Division,
    /// 军长 (8)
    General,
    /// 司令 (9)
    Commander,
}

impl Rank {
    pub const ALL: [Rank; 12] = [
        Rank::Flag,
        Rank::Mine,
        Rank::Bomb,
        Rank::Engineer,
        Rank::Lieutenant,
        Rank::Captain,
        Rank::Major,
        Rank::Colonel,
        Rank::Brigadier,
        Rank::Division,
        Rank::General,
        Rank::Commander,
    ];
    /// How many of this kind each seat has (25 in all).
    pub fn count(self) -> u8 {
        match self {
            Rank::Flag | Rank::General | Rank::Commander => 1,
            Rank::Bomb | Rank::Division | Rank::Brigadier | Rank::Colonel | Rank::Major => 2,
            Rank::Mine | Rank::Engineer | Rank::Lieutenant | Rank::Captain => 3,
        }
    }
    pub fn code(self) -> char {
        match self {
            Rank::Flag => 'F',
            Rank::Mine => 'M',
            Rank::Bomb => 'B',
            Rank::Engineer => '1',
            Rank::Lieutenant => '2',
            Rank::Captain => '3',
            Rank::Major => '4',
            Rank::Colonel => '5',
            Rank::Brigadier => '6',
            Rank::Division => '7',
            Rank::General => '8',
            Rank::Commander => '9',
        }
    }
    pub fn from_code(c: char) -> Option<Rank> {
        Rank::ALL.into_iter().find(|r| r.code() == c)
    }
    /// Military rank 1..=9 for officers and engineers; `None` for bomb, mine, flag.
    pub fn level(self) -> Option<u8> {
        self.code().to_digit(10).map(|d| d as u8)
    }
    /// Mines and flags never move.
    pub fn is_movable(self) -> bool {
        !matches!(self, Rank::Mine | Rank::Flag)
    }
    /// The full list of 25 pieces of one seat.
    pub fn full_set() -> Vec<Rank> {
        Rank::ALL.into_iter().flat_map(|r| std::iter::repeat_n(r, r.count() as usize)).collect()
    }
}

impl Serialize for Rank {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut buf = [0u8; 4];
        s.serialize_str(self.code().encode_utf8(&mut buf))
    }
}

impl<'de> Deserialize<'de> for Rank {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        let mut it = s.chars();
        match (it.next(), it.next()) {
            (Some(c), None) => Rank::from_code(c),
            _ => None,
        }
        .ok_or_else(|| serde::de::Error::custom(format!("unknown piece code {s:?}")))
    }
}

/// A piece on the board: its owner and rank. Serialized `"S9"`, `"EB"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    pub owner: Seat,
    pub rank: Rank,
}

impl Piece {
    pub fn parse(s: &str) -> Option<Piece> {
        let mut it = s.chars();
        let owner = Seat::from_letter(it.next()?)?;
        let rank = Rank::from_code(it.next()?)?;
        it.next().is_none().then_some(Piece { owner, rank })
    }
}

impl std::fmt::Display for Piece {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.owner.letter(), self.rank.code())
    }
}

impl Serialize for Piece {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Piece {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Piece::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown piece {s:?}")))
    }
}
