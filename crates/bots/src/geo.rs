//! Board geometry the bots use: step distances, headquarters, straight rail paths.
use siguo_rules::board::rail_lines;
use siguo_rules::{Seat, Station};
use std::sync::OnceLock;

const N: usize = Station::COUNT;

/// Number of single steps (any link) between two stations, by breadth-first search.
pub(crate) fn dist(a: Station, b: Station) -> u8 {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = vec![u8::MAX; N * N];
        for s in Station::all() {
            let row = &mut t[s.index() * N..(s.index() + 1) * N];
            row[s.index()] = 0;
            let mut queue = vec![s];
            let mut head = 0;
            while head < queue.len() {
                let cur = queue[head];
                head += 1;
                let d = row[cur.index()];
                for &nb in cur.neighbours() {
                    if row[nb.index()] == u8::MAX {
                        row[nb.index()] = d + 1;
                        queue.push(nb);
                    }
                }
            }
        }
        t
    });
    t[a.index() * N + b.index()]
}

/// The two headquarters of a seat (`b6`, `d6`).
pub(crate) fn headquarters(seat: Seat) -> [Station; 2] {
    [Station::of_seat(seat, 1, 6), Station::of_seat(seat, 3, 6)]
}

/// Whether a move path (from .. to) runs along one straight rail line (§2.4). A rail path of more
/// than one link that is not straight was made by an engineer.
pub(crate) fn is_straight(path: &[Station]) -> bool {
    if path.len() <= 2 {
        return true;
    }
    rail_lines().iter().any(|line| {
        let Some(i) = line.iter().position(|&s| s == path[0]) else { return false };
        let fwd = line[i..].len() >= path.len() && line[i..i + path.len()] == *path;
        let bwd = i + 1 >= path.len() && line[i + 1 - path.len()..=i].iter().rev().eq(path.iter());
        fwd || bwd
    })
}

/// The 25 non-camp stations of a seat's region (where a deployment puts its pieces).
pub(crate) fn deployment_stations(seat: Seat) -> impl Iterator<Item = Station> {
    (1..=6u8)
        .flat_map(move |row| (0..5u8).map(move |col| Station::of_seat(seat, col, row)))
        .filter(|s| !s.is_camp())
}

/// The stations exactly two steps from `s`.
pub(crate) fn two_steps(s: Station) -> &'static [Station] {
    static TABLE: OnceLock<Vec<Vec<Station>>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        Station::all().map(|a| Station::all().filter(|&b| dist(a, b) == 2).collect()).collect()
    });
    &t[s.index()]
}
