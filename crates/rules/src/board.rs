//! The cross-shaped board (rules.md §2): 129 stations, road and rail links, arcs, the 18 lines.
//!
//! Station indices: seat `s` (N=0, E=1, S=2, W=3) owns indices `s*30 .. s*30+30`, in the order
//! `(row-1)*5 + (col-1)` (`a1..e1, a2..e2, ..., a6..e6`); the centre is `120..129` in the order
//! `Ca1, Cb1, Cc1, Ca2, Cb2, Cc2, Ca3, Cb3, Cc3`. Tables are built once (`OnceLock`).
use serde::{Deserialize, Serialize};

/// A seat at the table. Battle turns go N → E → S → W.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Seat {
    N,
    E,
    S,
    W,
}

impl Seat {
    pub const ALL: [Seat; 4] = [Seat::N, Seat::E, Seat::S, Seat::W];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn from_index(i: usize) -> Seat {
        Seat::ALL[i & 3]
    }
    /// Clockwise next seat (N→E→S→W→N), eliminated or not.
    pub fn next(self) -> Seat {
        Seat::from_index(self.index() + 1)
    }
    pub fn partner(self) -> Seat {
        Seat::from_index(self.index() + 2)
    }
    pub fn team(self) -> Team {
        match self {
            Seat::N | Seat::S => Team::NS,
            Seat::E | Seat::W => Team::EW,
        }
    }
    pub fn letter(self) -> char {
        ['N', 'E', 'S', 'W'][self.index()]
    }
    pub fn from_letter(c: char) -> Option<Seat> {
        match c {
            'N' => Some(Seat::N),
            'E' => Some(Seat::E),
            'S' => Some(Seat::S),
            'W' => Some(Seat::W),
            _ => None,
        }
    }
}

/// A team: North+South or East+West.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Team {
    NS,
    EW,
}

impl Team {
    pub fn seats(self) -> [Seat; 2] {
        match self {
            Team::NS => [Seat::N, Seat::S],
            Team::EW => [Seat::E, Seat::W],
        }
    }
    pub fn other(self) -> Team {
        match self {
            Team::NS => Team::EW,
            Team::EW => Team::NS,
        }
    }
}

/// Kind of station (rules.md §2.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StationKind {
    /// 兵站
    Ordinary,
    /// 行营
    Camp,
    /// 大本营
    Headquarters,
}

/// A station, as a small index (0..129). Serialized as its name (`"Sa1"`, `"Cb2"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Station(pub(crate) u8);

impl Station {
    pub const COUNT: usize = 129;
    pub fn index(self) -> usize {
        self.0 as usize
    }
    pub fn from_index(i: usize) -> Option<Station> {
        (i < Self::COUNT).then_some(Station(i as u8))
    }
    pub fn all() -> impl Iterator<Item = Station> {
        (0..Self::COUNT as u8).map(Station)
    }
    /// Parse `"Sa1"` / `"Cb2"`.
    pub fn parse(name: &str) -> Option<Station> {
        todo!()
    }
    pub fn name(self) -> &'static str {
        todo!()
    }
    /// A seat's station from its local column (0..5 = a..e) and row (1..=6).
    pub fn of_seat(seat: Seat, col: u8, row: u8) -> Station {
        todo!()
    }
    /// The seat whose region holds this station; `None` for the centre.
    pub fn region(self) -> Option<Seat> {
        todo!()
    }
    /// Local column 0..5 (a..e), or centre column 0..3.
    pub fn col(self) -> u8 {
        todo!()
    }
    /// Local row 1..=6, or centre row 1..=3.
    pub fn row(self) -> u8 {
        todo!()
    }
    /// Global (x, y) on the 17×17 grid (rules.md §2.1).
    pub fn xy(self) -> (u8, u8) {
        todo!()
    }
    pub fn kind(self) -> StationKind {
        todo!()
    }
    pub fn is_camp(self) -> bool {
        self.kind() == StationKind::Camp
    }
    pub fn is_headquarters(self) -> bool {
        self.kind() == StationKind::Headquarters
    }
    pub fn on_rail(self) -> bool {
        todo!()
    }
    /// Every station joined to this one by a link (road or rail).
    pub fn neighbours(self) -> &'static [Station] {
        todo!()
    }
    /// Stations joined to this one by a rail link.
    pub fn rail_neighbours(self) -> &'static [Station] {
        todo!()
    }
}

impl std::fmt::Display for Station {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Station {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Station {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Station::parse(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown station {s:?}")))
    }
}

/// One link between two stations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Link {
    pub a: Station,
    pub b: Station,
    pub rail: bool,
}

/// All 288 links (rules.md §2.3), each once.
pub fn links() -> &'static [Link] {
    todo!()
}

/// The 18 straight rail lines (rules.md §2.4), each listed end to end.
pub fn rail_lines() -> &'static [Vec<Station>] {
    todo!()
}
