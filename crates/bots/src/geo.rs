//! Board geometry the bots use on either board: step distances, headquarters, straight rail
//! paths, who is friend and who is foe.
use siguo_rules::{Seat, Station, Variant};
use std::sync::OnceLock;

const N: usize = Station::COUNT;

/// Every station of both boards (they are disjoint components of one link graph).
fn every_station() -> impl Iterator<Item = Station> {
    (0..N).filter_map(Station::from_index)
}

/// Number of single steps (any link) between two stations, by breadth-first search
/// (`u8::MAX` between the two boards).
pub(crate) fn dist(a: Station, b: Station) -> u8 {
    static TABLE: OnceLock<Vec<u8>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        let mut t = vec![u8::MAX; N * N];
        for s in every_station() {
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

/// Whether seats `a` and `b` are on the same side: the same team in the four-player game, the
/// same seat in Hidden Front (where S and N, partners on the cross, are enemies).
pub(crate) fn allied(variant: Variant, a: Seat, b: Seat) -> bool {
    match variant {
        Variant::FourPlayer => a.team() == b.team(),
        Variant::HiddenFront => a == b,
    }
}

/// The seats of `variant` on `me`'s side (itself, and its partner in the four-player game).
pub(crate) fn own_side(variant: Variant, me: Seat) -> impl Iterator<Item = Seat> {
    variant.seats().iter().copied().filter(move |&s| allied(variant, me, s))
}

/// The seats of `variant` against `me`.
pub(crate) fn enemies(variant: Variant, me: Seat) -> impl Iterator<Item = Seat> {
    variant.seats().iter().copied().filter(move |&s| !allied(variant, me, s))
}

/// The two headquarters of a seat (local `b6`, `d6`) on `variant`'s board.
pub(crate) fn headquarters(variant: Variant, seat: Seat) -> [Station; 2] {
    let board = variant.board();
    let at = |col| board.station(seat, col, 6).unwrap_or(Station::of_seat(seat, col, 6));
    [at(1), at(3)]
}

/// Whether a move path (from .. to) runs along one straight rail line (§2.4). A rail path of more
/// than one link that is not straight was made by an engineer.
pub(crate) fn is_straight(path: &[Station]) -> bool {
    if path.len() <= 2 {
        return true;
    }
    path[0].variant().board().rail_lines().iter().any(|line| {
        let Some(i) = line.iter().position(|&s| s == path[0]) else { return false };
        let fwd = line[i..].len() >= path.len() && line[i..i + path.len()] == *path;
        let bwd = i + 1 >= path.len() && line[i + 1 - path.len()..=i].iter().rev().eq(path.iter());
        fwd || bwd
    })
}

/// The stations exactly two steps from `s`.
pub(crate) fn two_steps(s: Station) -> &'static [Station] {
    static TABLE: OnceLock<Vec<Vec<Station>>> = OnceLock::new();
    let t = TABLE.get_or_init(|| {
        every_station().map(|a| every_station().filter(|&b| dist(a, b) == 2).collect()).collect()
    });
    &t[s.index()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(name: &str) -> Station {
        Station::parse(name).unwrap()
    }

    #[test]
    fn hidden_front_geometry() {
        let v = Variant::HiddenFront;
        assert_eq!(headquarters(v, Seat::S), [st("B12"), st("D12")]);
        let mut n = headquarters(v, Seat::N);
        n.sort();
        assert_eq!(n, [st("B1"), st("D1")]);
        // The mountains: B6 and B7 are not linked, so B7 → B6 goes round through A or C.
        assert_eq!(dist(st("A6"), st("A7")), 1);
        assert_eq!(dist(st("B6"), st("B7")), 3);
        assert_eq!(dist(st("B12"), st("Sa1")), u8::MAX);
        assert!(is_straight(&[st("A11"), st("A10"), st("A9"), st("A8")]));
        assert!(!is_straight(&[st("A8"), st("A7"), st("B7")]));
        assert!(two_steps(st("C7")).contains(&st("C5")));
        assert!(allied(v, Seat::S, Seat::S) && !allied(v, Seat::S, Seat::N));
        assert!(allied(Variant::FourPlayer, Seat::S, Seat::N));
        assert_eq!(enemies(v, Seat::S).collect::<Vec<_>>(), [Seat::N]);
        assert_eq!(own_side(Variant::FourPlayer, Seat::E).count(), 2);
    }
}
