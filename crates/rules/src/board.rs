//! The two boards as data: the four-player cross (rules.md §2: 129 stations, arcs, 18 lines) and
//! Hidden Front's 5 × 12 board (hidden-front.md §2: 60 stations, 7 lines).
//!
//! One station index space holds both boards, so a [`Station`] names itself without context
//! (`"Sa1"`, `"C7"`) and the move generator runs on either board with the same tables: the two
//! boards are disjoint components of one link graph. Each board is described by a [`Board`]
//! (stations, kinds, links, lines, seats and their regions, deployment zones).
//!
//! Station indices: the cross first: seat `s` (N=0, E=1, S=2, W=3) owns indices
//! `s*30 .. s*30+30`, in the order `(row-1)*5 + (col-1)` (`a1..e1, a2..e2, ..., a6..e6`); the
//! centre is `120..129` in the order `Ca1, Cb1, Cc1, Ca2, Cb2, Cc2, Ca3, Cb3, Cc3`. Then Hidden
//! Front: `129 + (row-1)*5 + col` for `A1..E1, A2..E2, ..., A12..E12`. Each Hidden Front half is
//! laid out exactly like a seat's region of the cross, so local columns and rows (`a1`..`e6`)
//! mean the same on both boards. Tables are built once (`OnceLock`).
use crate::bits::Bits;
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

/// Which game is played: the board and its rules. JSON `"four_player"` (also read as
/// `"siguo"`, the referee's name) or `"hidden_front"`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// 四国军棋: four seats, two teams, the cross (rules.md).
    #[default]
    #[serde(alias = "siguo")]
    FourPlayer,
    /// 两人军棋 / Hidden Front: South against North on 5 × 12 (hidden-front.md).
    HiddenFront,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::FourPlayer, Variant::HiddenFront];
    /// The board this game is played on.
    pub fn board(self) -> &'static Board {
        &tables().boards[self as usize]
    }
    /// The seats that play, in turn order from the first mover (N E S W; S N).
    pub fn seats(self) -> &'static [Seat] {
        match self {
            Variant::FourPlayer => &Seat::ALL,
            Variant::HiddenFront => &[Seat::S, Seat::N],
        }
    }
    /// Whether `seat` plays in this game.
    pub fn has_seat(self, seat: Seat) -> bool {
        self.seats().contains(&seat)
    }
    /// The seat that moves first (North; South in Hidden Front).
    pub fn first_seat(self) -> Seat {
        self.seats()[0]
    }
    /// The seat after `seat` in turn order, eliminated or not.
    pub fn next_seat(self, seat: Seat) -> Seat {
        match self {
            Variant::FourPlayer => seat.next(),
            Variant::HiddenFront => seat.partner(),
        }
    }
    /// `"four_player"` / `"hidden_front"`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::FourPlayer => "four_player",
            Variant::HiddenFront => "hidden_front",
        }
    }
    pub fn is_four_player(&self) -> bool {
        *self == Variant::FourPlayer
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

/// A station of either board, as a small index (0..189). Serialized as its name (`"Sa1"`,
/// `"Cb2"` on the cross; `"C7"`, `"B12"` on Hidden Front's board).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Station(pub(crate) u8);

/// First index of Hidden Front's stations.
const HF: u8 = 129;

impl Station {
    /// Number of station indices over both boards (a bound for arrays indexed by station).
    pub const COUNT: usize = 189;
    pub fn index(self) -> usize {
        self.0 as usize
    }
    pub fn from_index(i: usize) -> Option<Station> {
        (i < Self::COUNT).then_some(Station(i as u8))
    }
    /// The four-player board's 129 stations (kept for the four-player API; see
    /// [`Board::stations`] for either board).
    pub fn all() -> impl Iterator<Item = Station> {
        (0..HF).map(Station)
    }
    /// The board this station belongs to.
    pub fn variant(self) -> Variant {
        if self.0 < HF {
            Variant::FourPlayer
        } else {
            Variant::HiddenFront
        }
    }
    /// Hidden Front's station at column `col` (0..5 = `A`..`E`) and row `row` (1..=12).
    pub fn hidden_front(col: u8, row: u8) -> Option<Station> {
        (col < 5 && (1..=12).contains(&row)).then(|| Station(HF + (row - 1) * 5 + col))
    }
    /// Hidden Front's (column 0..5, row 1..=12) of this station, `None` on the cross.
    pub fn hf_grid(self) -> Option<(u8, u8)> {
        (self.0 >= HF).then(|| ((self.0 - HF) % 5, (self.0 - HF) / 5 + 1))
    }
    /// Parse `"Sa1"` / `"Cb2"` (the cross) or `"C7"` / `"B12"` (Hidden Front).
    pub fn parse(name: &str) -> Option<Station> {
        let b = name.as_bytes();
        if (2..=3).contains(&b.len()) && b[1].is_ascii_digit() {
            let col = b[0].checked_sub(b'A')?;
            if b[1] == b'0' || !b[b.len() - 1].is_ascii_digit() {
                return None;
            }
            let row: u8 = name[1..].parse().ok()?;
            return Station::hidden_front(col, row);
        }
        if b.len() != 3 {
            return None;
        }
        if b[0] == b'C' {
            let c = b[1].checked_sub(b'a')?;
            let r = b[2].checked_sub(b'0')?;
            if c > 2 || !(1..=3).contains(&r) {
                return None;
            }
            return Some(Station(120 + (r - 1) * 3 + c));
        }
        let seat = Seat::from_letter(b[0] as char)?;
        let c = b[1].checked_sub(b'a')?;
        let r = b[2].checked_sub(b'0')?;
        if c > 4 || !(1..=6).contains(&r) {
            return None;
        }
        Some(Station::of_seat(seat, c, r))
    }
    pub fn name(self) -> &'static str {
        tables().names[self.index()].as_str()
    }
    /// A seat's station of the cross from its local column (0..5 = a..e) and row (1..=6).
    pub fn of_seat(seat: Seat, col: u8, row: u8) -> Station {
        debug_assert!(col < 5 && (1..=6).contains(&row));
        Station(seat.index() as u8 * 30 + (row - 1) * 5 + col)
    }
    /// The seat whose region (Hidden Front: half) holds this station; `None` for the centre.
    pub fn region(self) -> Option<Seat> {
        match self.0 {
            0..120 => Some(Seat::from_index(self.0 as usize / 30)),
            120..HF => None,
            _ if self.0 < HF + 30 => Some(Seat::N),
            _ => Some(Seat::S),
        }
    }
    /// Local column 0..5 (a..e, as the region's owner sees it), or centre column 0..3.
    pub fn col(self) -> u8 {
        match self.hf_grid() {
            Some((c, r)) if r <= 6 => 4 - c,
            Some((c, _)) => c,
            None if self.0 < 120 => self.0 % 30 % 5,
            None => (self.0 - 120) % 3,
        }
    }
    /// Local row 1..=6 (1 the front row), or centre row 1..=3.
    pub fn row(self) -> u8 {
        match self.hf_grid() {
            Some((_, r)) if r <= 6 => 7 - r,
            Some((_, r)) => r - 6,
            None if self.0 < 120 => self.0 % 30 / 5 + 1,
            None => (self.0 - 120) / 3 + 1,
        }
    }
    /// Global (x, y): on the cross the 17×17 grid (rules.md §2.1); on Hidden Front's board
    /// (column 0..5, row − 1), x to the right and y downward as South sees it.
    pub fn xy(self) -> (u8, u8) {
        tables().xy[self.index()]
    }
    pub fn kind(self) -> StationKind {
        tables().kind[self.index()]
    }
    pub fn is_camp(self) -> bool {
        self.kind() == StationKind::Camp
    }
    pub fn is_headquarters(self) -> bool {
        self.kind() == StationKind::Headquarters
    }
    pub fn on_rail(self) -> bool {
        tables().rail[self.index()]
    }
    /// Every station joined to this one by a link (road or rail).
    pub fn neighbours(self) -> &'static [Station] {
        &tables().nbrs[self.index()]
    }
    /// Stations joined to this one by a rail link.
    pub fn rail_neighbours(self) -> &'static [Station] {
        &tables().rail_nbrs[self.index()]
    }
    /// Whether a link (road or rail) joins the two stations.
    pub fn is_linked(self, other: Station) -> bool {
        self.neighbours().contains(&other)
    }
    /// The station of the cross at global (x, y), if any.
    pub fn at_xy(x: u8, y: u8) -> Option<Station> {
        if x > 16 || y > 16 {
            return None;
        }
        let i = tables().by_xy[y as usize * 17 + x as usize];
        (i != NONE).then_some(Station(i))
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

/// All 288 links of the cross (rules.md §2.3), each once. (Either board: [`Board::links`].)
pub fn links() -> &'static [Link] {
    Variant::FourPlayer.board().links()
}

/// The 18 straight rail lines of the cross (rules.md §2.4), each listed end to end.
pub fn rail_lines() -> &'static [Vec<Station>] {
    Variant::FourPlayer.board().rail_lines()
}

/// One board as data: its stations, links, straight rail lines, seats and their regions and
/// deployment zones. Station kinds and rail membership are on [`Station`].
#[derive(Debug)]
pub struct Board {
    variant: Variant,
    stations: std::ops::Range<u8>,
    links: Vec<Link>,
    lines: Vec<Vec<Station>>,
}

impl Board {
    pub fn variant(&self) -> Variant {
        self.variant
    }
    /// Every station of this board, ascending.
    pub fn stations(&self) -> impl Iterator<Item = Station> {
        self.stations.clone().map(Station)
    }
    pub fn station_count(&self) -> usize {
        self.stations.len()
    }
    pub fn contains(&self, s: Station) -> bool {
        self.stations.contains(&s.0)
    }
    /// Every link, each once.
    pub fn links(&self) -> &[Link] {
        &self.links
    }
    /// The straight rail lines, each listed end to end.
    pub fn rail_lines(&self) -> &[Vec<Station>] {
        &self.lines
    }
    /// The seats, in turn order from the first mover.
    pub fn seats(&self) -> &'static [Seat] {
        self.variant.seats()
    }
    /// A seat's station from its local column (0..5 = a..e) and row (1..=6); `None` if the seat
    /// does not play on this board or the coordinates are out of range.
    pub fn station(&self, seat: Seat, col: u8, row: u8) -> Option<Station> {
        if col > 4 || !(1..=6).contains(&row) || !self.variant.has_seat(seat) {
            return None;
        }
        match self.variant {
            Variant::FourPlayer => Some(Station::of_seat(seat, col, row)),
            Variant::HiddenFront if seat == Seat::S => Station::hidden_front(col, row + 6),
            Variant::HiddenFront => Station::hidden_front(4 - col, 7 - row),
        }
    }
    /// The 30 stations of a seat's region (Hidden Front: its half), local `a1..e1, .., a6..e6`.
    pub fn region(&self, seat: Seat) -> impl Iterator<Item = Station> + '_ {
        (1..=6u8)
            .flat_map(move |row| (0..5u8).map(move |col| (col, row)))
            .filter_map(move |(c, r)| self.station(seat, c, r))
    }
    /// The 25 non-camp stations of a seat's region, where its deployment stands.
    pub fn deployment_zone(&self, seat: Seat) -> impl Iterator<Item = Station> + '_ {
        self.region(seat).filter(|s| !s.is_camp())
    }
}

const NONE: u8 = 255;

/// Precomputed tables. The "hot" arrays are used by the move generator.
pub(crate) struct Tables {
    pub boards: [Board; 2],
    pub names: Vec<String>,
    pub xy: [(u8, u8); Station::COUNT],
    pub by_xy: [u8; 17 * 17],
    pub kind: [StationKind; Station::COUNT],
    pub rail: [bool; Station::COUNT],
    pub nbrs: Vec<Vec<Station>>,
    pub rail_nbrs: Vec<Vec<Station>>,
    /// Neighbours (all links), as raw indices; `adj_n` of them are valid.
    pub adj: [[u8; 8]; Station::COUNT],
    pub adj_n: [u8; Station::COUNT],
    /// Rail neighbours.
    pub radj: [[u8; 4]; Station::COUNT],
    pub radj_n: [u8; Station::COUNT],
    /// Rays: for station `s`, `rays[ray_start[s]..ray_start[s+1]]` are `(start, len)` slices of
    /// `ray_data`, each the stations met going out from `s` along one line in one direction.
    pub ray_start: [u16; Station::COUNT + 1],
    pub rays: Vec<(u16, u8)>,
    pub ray_data: Vec<u8>,
    /// Bit per station: camp / headquarters (for quick tests).
    pub camp: [bool; Station::COUNT],
    pub hq: [bool; Station::COUNT],
    /// Neighbour sets and the camp set as bitsets.
    pub adj_mask: [Bits; Station::COUNT],
    pub camp_mask: Bits,
}

pub(crate) fn tables() -> &'static Tables {
    static T: std::sync::OnceLock<Tables> = std::sync::OnceLock::new();
    T.get_or_init(build)
}

fn local_kind(col: u8, row: u8) -> StationKind {
    match (col, row) {
        (1, 6) | (3, 6) => StationKind::Headquarters,
        (1, 2) | (3, 2) | (2, 3) | (1, 4) | (3, 4) => StationKind::Camp,
        _ => StationKind::Ordinary,
    }
}

/// The links inside one region (or Hidden Front half), given its local → station map: the 49
/// orthogonal ones (rail in local rows 1 and 5 and columns a, e up to row 5) and the 16 camp
/// diagonals.
fn region_links(st: impl Fn(u8, u8) -> Station, add: &mut impl FnMut(Station, Station, bool)) {
    for r in 1..=6u8 {
        for c in 0..5u8 {
            // horizontal
            if c < 4 {
                add(st(c, r), st(c + 1, r), r == 1 || r == 5);
            }
            // vertical
            if r < 6 {
                add(st(c, r), st(c, r + 1), (c == 0 || c == 4) && r < 5);
            }
        }
    }
    // camp diagonals, each once
    let mut diag: Vec<(Station, Station)> = Vec::new();
    for r in 1..=6u8 {
        for c in 0..5u8 {
            if local_kind(c, r) != StationKind::Camp {
                continue;
            }
            for (dc, dr) in [(-1i8, -1i8), (1, -1), (-1, 1), (1, 1)] {
                let (nc, nr) = (c as i8 + dc, r as i8 + dr);
                if !(0..5).contains(&nc) || !(1..=6).contains(&nr) {
                    continue;
                }
                let (a, b) = (st(c, r), st(nc as u8, nr as u8));
                let key = if a < b { (a, b) } else { (b, a) };
                if !diag.contains(&key) {
                    diag.push(key);
                }
            }
        }
    }
    for (a, b) in diag {
        add(a, b, false);
    }
}

fn build() -> Tables {
    const N: usize = Station::COUNT;
    let mut names = Vec::with_capacity(N);
    let mut xy = [(0u8, 0u8); N];
    let mut kind = [StationKind::Ordinary; N];
    let mut rail = [false; N];
    for i in 0..N {
        let st = Station(i as u8);
        let (c, r) = (st.col(), st.row());
        if let Some((gc, gr)) = st.hf_grid() {
            names.push(format!("{}{}", (b'A' + gc) as char, gr));
            xy[i] = (gc, gr - 1);
            kind[i] = local_kind(c, r);
            rail[i] = r == 1 || r == 5 || ((c == 0 || c == 4) && r <= 5);
        } else if i < 120 {
            let seat = Seat::from_index(i / 30);
            names.push(format!("{}{}{}", seat.letter(), (b'a' + c) as char, r));
            let c1 = c + 1;
            xy[i] = match seat {
                Seat::S => (5 + c1, 10 + r),
                Seat::N => (11 - c1, 6 - r),
                Seat::W => (6 - r, 5 + c1),
                Seat::E => (10 + r, 11 - c1),
            };
            kind[i] = local_kind(c, r);
            rail[i] = r == 1 || r == 5 || ((c == 0 || c == 4) && r <= 5);
        } else {
            names.push(format!("C{}{}", (b'a' + c) as char, r));
            xy[i] = (6 + 2 * c, 10 - 2 * (r - 1));
            rail[i] = true;
        }
    }
    let mut by_xy = [NONE; 17 * 17];
    for (i, (x, y)) in xy.iter().enumerate().take(HF as usize) {
        by_xy[*y as usize * 17 + *x as usize] = i as u8;
    }
    let mut links: Vec<Link> = Vec::new();
    let mut add = |a: Station, b: Station, rail: bool| links.push(Link { a, b, rail });
    for seat in Seat::ALL {
        let st = |c: u8, r: u8| Station::of_seat(seat, c, r);
        region_links(st, &mut add);
        // front row to the centre
        for c in [0u8, 2, 4] {
            let s = st(c, 1);
            let (x, y) = xy[s.index()];
            let (cx, cy) = match seat {
                Seat::S => (x, y - 1),
                Seat::N => (x, y + 1),
                Seat::W => (x + 1, y),
                Seat::E => (x - 1, y),
            };
            let t = by_xy[cy as usize * 17 + cx as usize];
            add(s, Station(t), true);
        }
    }
    // centre grid
    for r in 0..3u8 {
        for c in 0..3u8 {
            let i = 120 + r * 3 + c;
            if c < 2 {
                add(Station(i), Station(i + 1), true);
            }
            if r < 2 {
                add(Station(i), Station(i + 3), true);
            }
        }
    }
    // arcs: e1 of a seat to a1 of its right-hand neighbour
    for seat in Seat::ALL {
        let right = Seat::from_index(seat.index() + 3);
        add(Station::of_seat(seat, 4, 1), Station::of_seat(right, 0, 1), true);
    }
    let cross_links = links.len();
    // Hidden Front: two halves laid out as regions, and the three front crossings (all rail);
    // B6-B7 and D6-D7 do not exist (the mountains).
    let hf = |c: u8, r: u8| Station::hidden_front(c, r).expect("hidden front station");
    let mut add = |a: Station, b: Station, rail: bool| links.push(Link { a, b, rail });
    region_links(|c, r| hf(4 - c, 7 - r), &mut add);
    region_links(|c, r| hf(c, r + 6), &mut add);
    for c in [0u8, 2, 4] {
        add(hf(c, 6), hf(c, 7), true);
    }
    let mut nbrs = vec![Vec::new(); N];
    let mut rail_nbrs = vec![Vec::new(); N];
    for l in &links {
        nbrs[l.a.index()].push(l.b);
        nbrs[l.b.index()].push(l.a);
        if l.rail {
            rail_nbrs[l.a.index()].push(l.b);
            rail_nbrs[l.b.index()].push(l.a);
        }
    }
    for v in nbrs.iter_mut().chain(rail_nbrs.iter_mut()) {
        v.sort();
    }
    let mut adj = [[NONE; 8]; N];
    let mut adj_n = [0u8; N];
    let mut radj = [[NONE; 4]; N];
    let mut radj_n = [0u8; N];
    for i in 0..N {
        for (k, s) in nbrs[i].iter().enumerate() {
            adj[i][k] = s.0;
        }
        adj_n[i] = nbrs[i].len() as u8;
        for (k, s) in rail_nbrs[i].iter().enumerate() {
            radj[i][k] = s.0;
        }
        radj_n[i] = rail_nbrs[i].len() as u8;
    }
    // the 18 lines
    let p = |n: &str| Station::parse(n).expect("line station");
    let col_line = |seat: Seat, c: u8, down: bool| -> Vec<Station> {
        let v: Vec<Station> = (1..=5).map(|r| Station::of_seat(seat, c, r)).collect();
        if down {
            v.into_iter().rev().collect()
        } else {
            v
        }
    };
    let mut lines: Vec<Vec<Station>> = Vec::new();
    for seat in Seat::ALL {
        for r in [1u8, 5] {
            lines.push((0..5).map(|c| Station::of_seat(seat, c, r)).collect());
        }
    }
    let long = |a: (Seat, u8), mid: [&str; 3], b: (Seat, u8)| -> Vec<Station> {
        let mut v = col_line(a.0, a.1, true);
        v.extend(mid.iter().map(|n| p(n)));
        v.extend(col_line(b.0, b.1, false));
        v
    };
    lines.push(long((Seat::S, 0), ["Ca1", "Ca2", "Ca3"], (Seat::N, 4)));
    lines.push(long((Seat::S, 4), ["Cc1", "Cc2", "Cc3"], (Seat::N, 0)));
    lines.push(long((Seat::W, 4), ["Ca1", "Cb1", "Cc1"], (Seat::E, 0)));
    lines.push(long((Seat::W, 0), ["Ca3", "Cb3", "Cc3"], (Seat::E, 4)));
    lines.push(["Sc1", "Cb1", "Cb2", "Cb3", "Nc1"].iter().map(|n| p(n)).collect());
    lines.push(["Wc1", "Ca2", "Cb2", "Cc2", "Ec1"].iter().map(|n| p(n)).collect());
    for seat in Seat::ALL {
        let right = Seat::from_index(seat.index() + 3);
        let mut v = col_line(seat, 4, true);
        v.extend(col_line(right, 0, false));
        lines.push(v);
    }
    let cross_lines = lines.len();
    // Hidden Front: rows 2, 6, 7, 11; columns A and E from row 2 to row 11; C6-C7.
    for r in [2u8, 6, 7, 11] {
        lines.push((0..5).map(|c| hf(c, r)).collect());
    }
    for c in [0u8, 4] {
        lines.push((2..=11).map(|r| hf(c, r)).collect());
    }
    lines.push(vec![hf(2, 6), hf(2, 7)]);
    // rays
    let mut ray_start = [0u16; N + 1];
    let mut rays = Vec::new();
    let mut ray_data = Vec::new();
    for (i, start) in ray_start.iter_mut().enumerate().take(N) {
        *start = rays.len() as u16;
        for line in &lines {
            if let Some(k) = line.iter().position(|s| s.index() == i) {
                let fwd: Vec<u8> = line[k + 1..].iter().map(|s| s.0).collect();
                let back: Vec<u8> = line[..k].iter().rev().map(|s| s.0).collect();
                for r in [fwd, back] {
                    if r.is_empty() {
                        continue;
                    }
                    rays.push((ray_data.len() as u16, r.len() as u8));
                    ray_data.extend(r);
                }
            }
        }
    }
    ray_start[N] = rays.len() as u16;
    let mut camp = [false; N];
    let mut hq = [false; N];
    for i in 0..N {
        camp[i] = kind[i] == StationKind::Camp;
        hq[i] = kind[i] == StationKind::Headquarters;
    }
    let mut adj_mask = [Bits::default(); N];
    let mut camp_mask = Bits::default();
    for i in 0..N {
        for s in &nbrs[i] {
            adj_mask[i].set(s.index());
        }
        if camp[i] {
            camp_mask.set(i);
        }
    }
    let boards = [
        Board {
            variant: Variant::FourPlayer,
            stations: 0..HF,
            links: links[..cross_links].to_vec(),
            lines: lines[..cross_lines].to_vec(),
        },
        Board {
            variant: Variant::HiddenFront,
            stations: HF..N as u8,
            links: links[cross_links..].to_vec(),
            lines: lines[cross_lines..].to_vec(),
        },
    ];
    Tables {
        boards,
        adj_mask,
        camp_mask,
        names,
        xy,
        by_xy,
        kind,
        rail,
        nbrs,
        rail_nbrs,
        adj,
        adj_n,
        radj,
        radj_n,
        ray_start,
        rays,
        ray_data,
        camp,
        hq,
    }
}
