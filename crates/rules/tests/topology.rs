//! Board topology invariants (rules.md §2).
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use siguo_rules::board::{links, rail_lines};
use siguo_rules::{Seat, Station, StationKind};

fn st(n: &str) -> Station {
    Station::parse(n).unwrap()
}

#[test]
fn counts() {
    assert_eq!(Station::all().count(), 129);
    assert_eq!(Station::all().filter(|s| s.on_rail()).count(), 73);
    assert_eq!(Station::all().filter(|s| s.kind() == StationKind::Camp).count(), 20);
    assert_eq!(Station::all().filter(|s| s.kind() == StationKind::Headquarters).count(), 8);
    let l = links();
    assert_eq!(l.len(), 288);
    assert_eq!(l.iter().filter(|l| !l.rail).count(), 196);
    assert_eq!(l.iter().filter(|l| l.rail).count(), 92);
    assert_eq!(rail_lines().len(), 18);
}

#[test]
fn link_breakdown() {
    let l = links();
    let inside = l
        .iter()
        .filter(|l| l.rail && l.a.region().is_some() && l.a.region() == l.b.region())
        .count();
    let centre = l.iter().filter(|l| l.a.region().is_none() && l.b.region().is_none()).count();
    let front = l.iter().filter(|l| l.a.region().is_some() != l.b.region().is_some()).count();
    let arcs = l
        .iter()
        .filter(|l| {
            l.a.region().is_some() && l.b.region().is_some() && l.a.region() != l.b.region()
        })
        .count();
    assert_eq!((inside, front, centre, arcs), (64, 12, 12, 4));
    // no duplicate links
    for (i, x) in l.iter().enumerate() {
        for y in &l[i + 1..] {
            assert!(!((x.a == y.a && x.b == y.b) || (x.a == y.b && x.b == y.a)), "{x:?}");
        }
    }
}

#[test]
fn names_roundtrip_and_xy() {
    let mut seen = std::collections::HashSet::new();
    for s in Station::all() {
        assert_eq!(Station::parse(s.name()), Some(s));
        assert!(seen.insert(s.xy()), "xy collision {s}");
        assert_eq!(Station::at_xy(s.xy().0, s.xy().1), Some(s));
    }
    assert_eq!(st("Sb6").kind(), StationKind::Headquarters);
    assert_eq!(st("Sa1").xy(), (6, 11));
    assert_eq!(st("Na1").xy(), (10, 5));
    assert_eq!(st("Wa1").xy(), (5, 6));
    assert_eq!(st("Ea1").xy(), (11, 10));
    assert_eq!(st("Ca1").xy(), (6, 10));
    assert_eq!(st("Cc3").xy(), (10, 6));
    assert_eq!(Station::parse("Sf1"), None);
    assert_eq!(Station::parse("Cd1"), None);
    assert_eq!(Station::parse("S a1"), None);
    assert_eq!(Station::of_seat(Seat::E, 2, 3).name(), "Ec3");
}

#[test]
fn links_are_unit_steps_or_arcs() {
    for l in links() {
        let (ax, ay) = l.a.xy();
        let (bx, by) = l.b.xy();
        let (dx, dy) = ((ax as i32 - bx as i32).abs(), (ay as i32 - by as i32).abs());
        let centre = l.a.region().is_none() && l.b.region().is_none();
        if centre {
            assert_eq!(dx + dy, 2);
        } else {
            assert!(dx + dy == 1 || (dx == 1 && dy == 1), "{l:?}");
        }
    }
}

#[test]
fn arcs_and_gaps() {
    for (a, b) in [("Se1", "Ea1"), ("Ee1", "Na1"), ("Ne1", "Wa1"), ("We1", "Sa1")] {
        assert!(st(a).rail_neighbours().contains(&st(b)));
    }
    for seat in ["S", "N", "E", "W"] {
        for c in ["b1", "d1"] {
            let s = st(&format!("{seat}{c}"));
            assert!(s.neighbours().iter().all(|n| n.region().is_some()), "{s} links to centre");
        }
    }
    assert!(st("Sa1").rail_neighbours().contains(&st("Ca1")));
    assert!(st("Sc1").rail_neighbours().contains(&st("Cb1")));
    assert!(st("Se1").rail_neighbours().contains(&st("Cc1")));
    assert!(st("Nc1").rail_neighbours().contains(&st("Cb3")));
    assert!(st("Wc1").rail_neighbours().contains(&st("Ca2")));
    assert!(st("Ec1").rail_neighbours().contains(&st("Cc2")));
    // x5-x6 is road, row 6 road only
    assert!(!st("Sa5").rail_neighbours().contains(&st("Sa6")));
    assert!(st("Sa5").neighbours().contains(&st("Sa6")));
    // camp diagonals
    assert!(st("Sb2").neighbours().contains(&st("Sa1")));
    assert!(st("Sc3").neighbours().contains(&st("Sd4")));
    assert!(!st("Sc2").neighbours().contains(&st("Sb1")));
    assert_eq!(st("Sc3").neighbours().len(), 8);
}

#[test]
fn lines_are_rail_paths() {
    let lines = rail_lines();
    let mut lens: Vec<usize> = lines.iter().map(|l| l.len()).collect();
    lens.sort();
    assert_eq!(lens, [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 10, 10, 10, 10, 13, 13, 13, 13]);
    for l in lines {
        for w in l.windows(2) {
            assert!(w[0].rail_neighbours().contains(&w[1]), "{} {}", w[0], w[1]);
        }
    }
    let names: Vec<&str> = lines[8].iter().map(|s| s.name()).collect();
    assert_eq!(
        names,
        ["Sa5", "Sa4", "Sa3", "Sa2", "Sa1", "Ca1", "Ca2", "Ca3", "Ne1", "Ne2", "Ne3", "Ne4", "Ne5"]
    );
    // every rail link lies on some line
    for l in links().iter().filter(|l| l.rail) {
        assert!(lines.iter().any(|line| line
            .windows(2)
            .any(|w| (w[0] == l.a && w[1] == l.b) || (w[0] == l.b && w[1] == l.a))));
    }
}

#[test]
fn pairs_5624() {
    let rail: Vec<Station> = Station::all().filter(|s| s.on_rail()).collect();
    let mut n = 0;
    for s in Station::all().filter(|s| !s.is_headquarters()) {
        let mut set: std::collections::BTreeSet<Station> = s.neighbours().iter().copied().collect();
        if s.on_rail() {
            set.extend(rail.iter().copied().filter(|&r| r != s));
        }
        n += set.len();
    }
    assert_eq!(n, 5624);
}

// ----- Hidden Front's board (hidden-front.md §2) -----

mod hidden_front {
    use super::st;
    use siguo_rules::{Seat, Station, StationKind, Variant};

    fn board() -> &'static siguo_rules::board::Board {
        Variant::HiddenFront.board()
    }

    #[test]
    fn counts() {
        let b = board();
        assert_eq!(b.stations().count(), 60);
        assert_eq!(b.stations().filter(|s| s.on_rail()).count(), 32);
        assert_eq!(b.stations().filter(|s| s.kind() == StationKind::Camp).count(), 10);
        assert_eq!(b.stations().filter(|s| s.kind() == StationKind::Headquarters).count(), 4);
        assert_eq!(b.links().len(), 133);
        assert_eq!(b.links().iter().filter(|l| !l.rail).count(), 98);
        assert_eq!(b.links().iter().filter(|l| l.rail).count(), 35);
        assert_eq!(b.rail_lines().len(), 7);
        // the cross is untouched and the boards do not touch
        assert_eq!(Variant::FourPlayer.board().stations().count(), 129);
        for s in b.stations() {
            assert_eq!(s.variant(), Variant::HiddenFront);
            assert!(s.neighbours().iter().all(|n| b.contains(*n)), "{s}");
        }
    }

    #[test]
    fn kinds_by_name() {
        let hq: Vec<&str> =
            board().stations().filter(|s| s.is_headquarters()).map(|s| s.name()).collect();
        assert_eq!(hq, ["B1", "D1", "B12", "D12"]);
        let camps: Vec<&str> =
            board().stations().filter(|s| s.is_camp()).map(|s| s.name()).collect();
        assert_eq!(camps, ["B3", "D3", "C4", "B5", "D5", "B8", "D8", "C9", "B10", "D10"]);
        for c in camps {
            assert_eq!(st(c).neighbours().len(), 8, "{c} has four diagonals");
        }
    }

    #[test]
    fn names_regions_and_local_coordinates() {
        for s in board().stations() {
            assert_eq!(Station::parse(s.name()), Some(s));
            let seat = s.region().unwrap();
            assert_eq!(board().station(seat, s.col(), s.row()), Some(s));
        }
        for bad in ["A0", "F1", "A13", "a1", "C07", "B"] {
            assert_eq!(Station::parse(bad), None, "{bad}");
        }
        // South's a1 is A7, its back row 12; North's a1 is E6, its back row 1
        assert_eq!(board().station(Seat::S, 0, 1), Some(st("A7")));
        assert_eq!(board().station(Seat::S, 1, 6), Some(st("B12")));
        assert_eq!(board().station(Seat::N, 0, 1), Some(st("E6")));
        assert_eq!(board().station(Seat::N, 1, 6), Some(st("D1")));
        assert_eq!(board().station(Seat::E, 0, 1), None);
        assert_eq!(st("C7").region(), Some(Seat::S));
        assert_eq!(st("C6").region(), Some(Seat::N));
        assert_eq!(board().deployment_zone(Seat::N).count(), 25);
        assert_eq!(board().region(Seat::S).count(), 30);
    }

    #[test]
    fn front_crossings_and_mountains() {
        for c in ["A", "C", "E"] {
            let (a, b) = (st(&format!("{c}6")), st(&format!("{c}7")));
            assert!(a.rail_neighbours().contains(&b), "{c}6-{c}7 is rail");
        }
        for c in ["B", "D"] {
            let (a, b) = (st(&format!("{c}6")), st(&format!("{c}7")));
            assert!(!a.is_linked(b), "{c}6-{c}7 is a mountain gap");
        }
        let crossings = board()
            .links()
            .iter()
            .filter(|l| l.a.region() != l.b.region())
            .map(|l| format!("{}-{}", l.a, l.b))
            .collect::<Vec<_>>();
        assert_eq!(crossings, ["A6-A7", "C6-C7", "E6-E7"]);
    }

    #[test]
    fn rail_is_where_the_spec_says() {
        for l in board().links() {
            let ((ac, ar), (bc, br)) = (l.a.hf_grid().unwrap(), l.b.hf_grid().unwrap());
            let row_rail = ar == br && [2, 6, 7, 11].contains(&ar);
            let col_rail = ac == bc
                && (ac == 0 || ac == 4)
                && ((2..=6).contains(&ar.min(br)) && ar.max(br) <= 6
                    || (7..=11).contains(&ar.min(br)) && ar.max(br) <= 11);
            let front = ac == bc && ar.min(br) == 6 && ar.max(br) == 7;
            assert_eq!(l.rail, row_rail || col_rail || front, "{l:?}");
            let (dx, dy) = (ac.abs_diff(bc), ar.abs_diff(br));
            assert!(dx + dy == 1 || (dx == 1 && dy == 1), "{l:?}");
        }
    }

    #[test]
    fn lines() {
        let names: Vec<Vec<&str>> =
            board().rail_lines().iter().map(|l| l.iter().map(|s| s.name()).collect()).collect();
        let mut lens: Vec<usize> = names.iter().map(|l| l.len()).collect();
        lens.sort();
        assert_eq!(lens, [2, 5, 5, 5, 5, 10, 10]);
        assert!(names.contains(&vec!["C6", "C7"]));
        assert!(names.iter().any(|l| l.first() == Some(&"A2") && l.last() == Some(&"A11")));
        for l in board().rail_lines() {
            for w in l.windows(2) {
                assert!(w[0].rail_neighbours().contains(&w[1]), "{} {}", w[0], w[1]);
            }
        }
        for l in board().links().iter().filter(|l| l.rail) {
            assert!(board().rail_lines().iter().any(|line| line
                .windows(2)
                .any(|w| (w[0] == l.a && w[1] == l.b) || (w[0] == l.b && w[1] == l.a))));
        }
    }

    #[test]
    fn pairs_1176() {
        let rail: Vec<Station> = board().stations().filter(|s| s.on_rail()).collect();
        let mut n = 0;
        for s in board().stations().filter(|s| !s.is_headquarters()) {
            let mut set: std::collections::BTreeSet<Station> =
                s.neighbours().iter().copied().collect();
            if s.on_rail() {
                set.extend(rail.iter().copied().filter(|&r| r != s));
            }
            n += set.len();
        }
        assert_eq!(n, 1176);
    }
}
