//! One test (at least) per rule of hidden-front.md §3–§5, on sparse positions.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use siguo_rules::*;
use std::collections::BTreeMap;

fn st(n: &str) -> Station {
    Station::parse(n).unwrap_or_else(|| panic!("bad station {n}"))
}

fn position(turn: Seat, pieces: &[(&str, &str)]) -> Position {
    Position {
        variant: Variant::HiddenFront,
        turn,
        pieces: pieces.iter().map(|(s, p)| (st(s), Piece::parse(p).unwrap())).collect(),
        options: Options::for_variant(Variant::HiddenFront),
        eliminated: vec![],
        skips: BTreeMap::new(),
        steps: 0,
        quiet_steps: Some(0),
    }
}

fn game(turn: Seat, pieces: &[(&str, &str)]) -> Game {
    Game::from_position(&position(turn, pieces)).unwrap()
}

/// Filler pieces so that both sides always have a move in these small positions.
const OTHERS: [(&str, &str); 2] = [("C1", "N2"), ("C12", "S2")];

fn with_others<'a>(v: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut out: Vec<(&str, &str)> = v.to_vec();
    for o in OTHERS {
        if !out.iter().any(|(s, _)| *s == o.0) {
            out.push(o);
        }
    }
    out
}

fn dests(g: &Game, from: &str) -> Vec<String> {
    let mut v: Vec<String> =
        g.legal_moves_from(st(from)).iter().map(|m| m.to.name().to_string()).collect();
    v.sort();
    v
}

fn mv(a: &str, b: &str) -> Action {
    Action::Move { from: st(a), to: st(b) }
}

fn can(g: &Game, from: &str, to: &str) -> bool {
    let ok = dests(g, from).iter().any(|d| d == to);
    assert_eq!(ok, g.clone().apply(&mv(from, to)).is_ok(), "{from}-{to}");
    ok
}

fn path(g: &Game, from: &str, to: &str) -> Vec<String> {
    let m = g.legal_moves_from(st(from)).into_iter().find(|m| m.to == st(to)).expect("move");
    m.path.iter().map(|s| s.name().to_string()).collect()
}

fn won(winner: Seat, reason: WinReason) -> Status {
    Status::SeatWon { winner, reason }
}

// ---------- §1 sides and turns ----------

#[test]
fn south_moves_first_and_turns_alternate() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let o = Options::for_variant(Variant::HiddenFront);
    assert_eq!(o.mines, MineRule::Mutual);
    let deps: Vec<Deployment> = Variant::HiddenFront
        .seats()
        .iter()
        .map(|&s| Deployment::random_for(Variant::HiddenFront, s, &o, &mut rng))
        .collect();
    let mut g = Game::start(Variant::HiddenFront, o, &deps).unwrap();
    assert_eq!(g.turn(), Some(Seat::S));
    assert_eq!(g.initial_events(), vec![Event::Turn { seat: Seat::S, steps: 0 }]);
    let m = g.legal_moves()[0].clone();
    assert_eq!(m.from.region(), Some(Seat::S));
    let ev = g.apply(&Action::Move { from: m.from, to: m.to }).unwrap();
    assert_eq!(ev.last(), Some(&Event::Turn { seat: Seat::N, steps: 1 }));
    // the four-player entry point refuses two deployments; the wrong order is refused
    let swapped = [deps[1].clone(), deps[0].clone()];
    assert!(Game::start(Variant::HiddenFront, o, &swapped).is_err());
    assert!(Game::start(Variant::HiddenFront, o, &deps[..1]).is_err());
    // East and West do not play
    assert_eq!(
        g.clone().apply(&Action::Surrender { seat: Seat::E }),
        Err(RuleError::SeatEliminated)
    );
    assert_eq!(
        g.clone().apply(&Action::OfferDraw { seat: Seat::W }),
        Err(RuleError::SeatEliminated)
    );
}

// ---------- §2 the front ----------

#[test]
fn each_front_crossing_is_passable() {
    for c in ["A", "C", "E"] {
        let (s7, n6) = (format!("{c}7"), format!("{c}6"));
        let g = game(Seat::S, &with_others(&[(&s7, "S5")]));
        assert!(can(&g, &s7, &n6), "{c}7-{c}6");
        let g = game(Seat::N, &with_others(&[(&n6, "N5")]));
        assert!(can(&g, &n6, &s7), "{c}6-{c}7");
        // and an attack across it
        let g = game(Seat::S, &with_others(&[(&s7, "S5"), (&n6, "N4")]));
        let mut g2 = g.clone();
        g2.apply(&mv(&s7, &n6)).unwrap();
        assert_eq!(g2.piece_at(st(&n6)), Some(Piece { owner: Seat::S, rank: Rank::Colonel }));
    }
}

#[test]
fn each_mountain_gap_blocks() {
    for c in ["B", "D"] {
        let (s7, n6) = (format!("{c}7"), format!("{c}6"));
        let g = game(Seat::S, &with_others(&[(&s7, "S5"), (&n6, "N4")]));
        assert!(!can(&g, &s7, &n6), "{c}7-{c}6 crosses a mountain");
        assert!(dests(&g, &s7).iter().all(|d| st(d).region() == Some(Seat::S)), "{c}7");
        let g = game(Seat::N, &with_others(&[(&n6, "N4")]));
        assert!(!can(&g, &n6, &s7), "{c}6-{c}7 crosses a mountain");
    }
}

#[test]
fn rail_slides_cross_the_front_along_a_line() {
    let g = game(Seat::S, &with_others(&[("A11", "S6")]));
    let d = dests(&g, "A11");
    for s in ["A10", "A9", "A8", "A7", "A6", "A5", "A4", "A3", "A2", "B11", "E11"] {
        assert!(d.contains(&s.to_string()), "A11 slides to {s}: {d:?}");
    }
    // not off the end of column A, nor round the corner into row 6
    assert!(!d.contains(&"A1".to_string()) && !d.contains(&"B6".to_string()), "{d:?}");
    assert_eq!(path(&g, "A11", "A6"), ["A11", "A10", "A9", "A8", "A7", "A6"]);
    // C6-C7 is a line of two: a piece on C7 slides no further north than C6
    let g = game(Seat::S, &with_others(&[("C7", "S6")]));
    assert!(can(&g, "C7", "C6"));
    assert!(!can(&g, "C7", "C5"));
    // a piece starting off rail steps once, even onto the front rail
    let g = game(Seat::S, &with_others(&[("C8", "S6")]));
    assert_eq!(dests(&g, "C8"), ["B8", "C7", "C9", "D8"]);
}

#[test]
fn engineer_turns_from_a_column_into_row_6_and_across_the_front() {
    let g = game(Seat::S, &with_others(&[("A9", "S1")]));
    let d = dests(&g, "A9");
    for s in ["B6", "C6", "D6", "E6", "E2", "B2", "E7", "C7", "E11"] {
        assert!(d.contains(&s.to_string()), "engineer reaches {s}: {d:?}");
    }
    assert_eq!(path(&g, "A9", "D6"), ["A9", "A8", "A7", "A6", "B6", "C6", "D6"]);
    // across the front again, from row 6 back down C6-C7 is reached by its shortest rail path
    assert_eq!(path(&g, "A9", "C7"), ["A9", "A8", "A7", "B7", "C7"]);
    // an officer on the same station cannot turn
    let g = game(Seat::S, &with_others(&[("A9", "S6")]));
    assert!(!can(&g, "A9", "B6"));
    assert!(can(&g, "A9", "A6"));
    // with A6 blocked, row 6 is still reached across the C crossing; with C7 blocked too, by
    // row 11 and column E; with E8 blocked as well, not at all
    let g = game(Seat::S, &with_others(&[("A9", "S1"), ("A6", "SM")]));
    assert_eq!(path(&g, "A9", "B6"), ["A9", "A8", "A7", "B7", "C7", "C6", "B6"]);
    let g = game(Seat::S, &with_others(&[("A9", "S1"), ("A6", "SM"), ("C7", "SM")]));
    assert_eq!(path(&g, "A9", "D6").len(), 13);
    let blocked = [("A9", "S1"), ("A6", "SM"), ("C7", "SM"), ("E8", "SM")];
    let g = game(Seat::S, &with_others(&blocked));
    assert!(!can(&g, "A9", "B6"));
    assert!(can(&g, "A9", "B7"));
    assert!(!can(&g, "A9", "E7"));
}

#[test]
fn camps_and_headquarters() {
    // a piece in a camp cannot be attacked; an empty camp can be entered by anyone
    let g = game(Seat::S, &with_others(&[("A6", "S5"), ("B5", "N2"), ("C6", "S3")]));
    assert!(!can(&g, "A6", "B5"));
    let g = game(Seat::S, &with_others(&[("A6", "S5")]));
    assert!(can(&g, "A6", "B5"));
    // a piece in a headquarters never moves
    let g = game(Seat::S, &with_others(&[("B12", "S9")]));
    assert!(dests(&g, "B12").is_empty());
}

// ---------- §3 deployment ----------

fn deployment(seat: Seat, seed: u64) -> Deployment {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    Deployment::random_for(
        Variant::HiddenFront,
        seat,
        &Options::for_variant(Variant::HiddenFront),
        &mut rng,
    )
}

#[test]
fn random_deployments_are_legal() {
    let o = Options::for_variant(Variant::HiddenFront);
    for seed in 0..200 {
        for seat in [Seat::S, Seat::N] {
            let d = deployment(seat, seed);
            assert_eq!(d.variant(), Variant::HiddenFront);
            assert_eq!(d.validate(&o), Ok(()));
            assert_eq!(d.pieces.len(), 25);
            for (s, r) in &d.pieces {
                assert_eq!(s.region(), Some(seat));
                if *r == Rank::Mine {
                    assert!(!s.is_headquarters() && s.row() >= 5, "{s}");
                }
            }
        }
    }
}

#[test]
fn deployment_rules() {
    let o = Options::for_variant(Variant::HiddenFront);
    let d = deployment(Seat::S, 7);
    let find = |d: &Deployment, r: Rank| *d.pieces.iter().find(|(_, &x)| x == r).unwrap().0;
    let flag = find(&d, Rank::Flag);
    let other_hq = if flag == st("B12") { st("D12") } else { st("B12") };
    // a mine may not go into the other headquarters (it may in the four-player game)
    let mine = find(&d, Rank::Mine);
    let mut x = d.clone();
    assert_eq!(
        x.swap(mine, other_hq, &o),
        Err(DeployError::MineInHeadquarters { station: other_hq })
    );
    assert_eq!(x, d);
    let mut x = d.clone();
    let r = x.pieces[&other_hq];
    x.pieces.insert(other_hq, Rank::Mine);
    x.pieces.insert(mine, r);
    let e = x.validate(&o).unwrap_err();
    assert!(
        matches!(
            e,
            DeployError::MineInHeadquarters { .. }
                | DeployError::MineOutsideBackRows { .. }
                | DeployError::FlagNotInHeadquarters { .. }
                | DeployError::BombInFrontRow { .. }
        ),
        "{e:?}"
    );
    assert!(["mine", "flag", "bomb"].iter().any(|k| e.code().starts_with(k)), "{e:?}");
    // mines in the last two rows: 11-12 for South, 1-2 for North
    let mut x = d.clone();
    assert!(matches!(
        x.swap(mine, st("B9"), &o),
        Err(DeployError::PieceInCamp { .. }) | Err(DeployError::MineOutsideBackRows { .. })
    ));
    assert_eq!(
        x.swap(mine, st("A10"), &o),
        Err(DeployError::MineOutsideBackRows { station: st("A10") })
    );
    // bombs not in the front row (row 7 for South, 6 for North), whatever bombs_front_row says
    let bomb = find(&d, Rank::Bomb);
    let lenient = Options { bombs_front_row: true, ..o };
    if d.pieces[&st("A7")] != Rank::Bomb {
        assert_eq!(
            x.swap(bomb, st("A7"), &lenient),
            Err(DeployError::BombInFrontRow { station: st("A7") })
        );
    }
    let n = deployment(Seat::N, 7);
    let nbomb = find(&n, Rank::Bomb);
    if n.pieces[&st("C6")] != Rank::Bomb {
        assert_eq!(
            n.clone().swap(nbomb, st("C6"), &o),
            Err(DeployError::BombInFrontRow { station: st("C6") })
        );
    }
    // North's mines are in rows 1-2
    assert!(n.pieces.iter().filter(|(_, r)| **r == Rank::Mine).all(|(s, _)| s
        .hf_grid()
        .unwrap()
        .1
        <= 2));
    // the flag in one of its own headquarters
    assert!([st("B1"), st("D1")].contains(&find(&n, Rank::Flag)));
    // a four-player station in a Hidden Front deployment, and the wrong seat
    let mut x = d.clone();
    let r = x.pieces.remove(&st("A7")).unwrap();
    x.pieces.insert(st("Sa1"), r);
    assert_eq!(
        x.validate_for(Variant::HiddenFront, &o),
        Err(DeployError::OutsideRegion { station: st("Sa1") })
    );
    let e = Deployment { seat: Seat::E, pieces: BTreeMap::new() };
    assert!(matches!(
        e.validate_for(Variant::HiddenFront, &o),
        Err(DeployError::OutsideRegion { .. })
    ));
    // formations are shared between the games (same local names)
    let f = d.to_formation();
    let back = Deployment::from_formation_for(Variant::HiddenFront, Seat::S, &f, &o).unwrap();
    assert_eq!(back, d);
    let north = Deployment::from_formation_for(Variant::HiddenFront, Seat::N, &f, &o).unwrap();
    assert_eq!(north.to_formation(), f);
}

// ---------- §4 combat ----------

fn after_attack(att: &str, def: &str, options: Options) -> (Game, Vec<Event>) {
    let mut p = position(Seat::S, &with_others(&[("A7", att), ("A6", def), ("B1", "NF")]));
    p.options = options;
    let mut g = Game::from_position(&p).unwrap();
    let ev = g.apply(&mv("A7", "A6")).unwrap();
    (g, ev)
}

fn combat_of(ev: &[Event]) -> Option<CombatOutcome> {
    ev.iter().find_map(|e| match e {
        Event::Moved { combat, .. } => *combat,
        _ => None,
    })
}

#[test]
fn bomb_against_mine_removes_both() {
    let hf = Options::for_variant(Variant::HiddenFront);
    for o in [hf, Options { mines: MineRule::Invincible, ..hf }] {
        let (g, ev) = after_attack("SB", "NM", o);
        assert_eq!(combat_of(&ev), Some(CombatOutcome::BothRemoved));
        assert_eq!(g.piece_at(st("A6")), None);
        assert_eq!(g.piece_at(st("A7")), None);
        assert!(!g.is_over());
        assert_eq!(g.quiet_steps(), 0);
    }
}

#[test]
fn bomb_against_flag_captures_it() {
    let mut g = game(Seat::S, &with_others(&[("A7", "SB"), ("A6", "NF")]));
    let ev = g.apply(&mv("A7", "A6")).unwrap();
    assert_eq!(combat_of(&ev), Some(CombatOutcome::BothRemoved));
    assert_eq!(g.status(), won(Seat::S, WinReason::FlagCaptured));
    assert_eq!(ev.last(), Some(&Event::GameOver { status: won(Seat::S, WinReason::FlagCaptured) }));
    assert!(g.turn().is_none());
}

#[test]
fn mines_mutual_by_default_invincible_as_option() {
    let hf = Options::for_variant(Variant::HiddenFront);
    let (g, ev) = after_attack("S9", "NM", hf);
    assert_eq!(combat_of(&ev), Some(CombatOutcome::BothRemoved));
    assert_eq!(g.piece_at(st("A6")), None);
    let (g, ev) = after_attack("S9", "NM", Options { mines: MineRule::Invincible, ..hf });
    assert_eq!(combat_of(&ev), Some(CombatOutcome::DefenderWon));
    assert_eq!(g.piece_at(st("A6")), Some(Piece { owner: Seat::N, rank: Rank::Mine }));
    // an engineer clears a mine and takes the station, under both rules
    for o in [hf, Options { mines: MineRule::Invincible, ..hf }] {
        let (g, ev) = after_attack("S1", "NM", o);
        assert_eq!(combat_of(&ev), Some(CombatOutcome::AttackerWon));
        assert_eq!(g.piece_at(st("A6")), Some(Piece { owner: Seat::S, rank: Rank::Engineer }));
    }
}

#[test]
fn ranks_and_commander_reveals_flag() {
    let (g, ev) = after_attack("S5", "N5", Options::for_variant(Variant::HiddenFront));
    assert_eq!(combat_of(&ev), Some(CombatOutcome::BothRemoved));
    assert!(g.piece_at(st("A6")).is_none());
    let (g, ev) = after_attack("S8", "N9", Options::for_variant(Variant::HiddenFront));
    assert_eq!(combat_of(&ev), Some(CombatOutcome::DefenderWon));
    assert!(!g.flag_revealed(Seat::S) && !g.flag_revealed(Seat::N));
    let (g, _) = after_attack("S9", "NB", Options::for_variant(Variant::HiddenFront));
    assert!(g.flag_revealed(Seat::S) && !g.flag_revealed(Seat::N));
    let (g, ev) = after_attack("S9", "N8", Options::for_variant(Variant::HiddenFront));
    assert_eq!(combat_of(&ev), Some(CombatOutcome::AttackerWon));
    assert!(!g.flag_revealed(Seat::N));
    let (g, ev) = after_attack("S9", "N9", Options::for_variant(Variant::HiddenFront));
    assert!(ev.contains(&Event::FlagRevealed { seat: Seat::N, station: st("B1") }));
    assert!(g.flag_revealed(Seat::N));
    // the revealed flag is public; other ranks are not
    let v = g.view(Viewer::Seats(SeatSet::one(Seat::S)));
    assert_eq!(v.pieces[&st("B1")].rank(), Some(Rank::Flag));
    assert_eq!(v.pieces[&st("C1")].rank(), None);
    assert_eq!(v.pieces[&st("C12")].rank(), Some(Rank::Lieutenant));
}

// ---------- §5 end of the game ----------

#[test]
fn flag_capture_wins_and_takes_precedence_over_no_legal_move() {
    // North's only other piece is a mine: after the capture North would also have no move
    let mut g = game(Seat::S, &[("B2", "S3"), ("B1", "NF"), ("A1", "NM"), ("C12", "S2")]);
    g.apply(&mv("B2", "B1")).unwrap();
    assert_eq!(g.status(), won(Seat::S, WinReason::FlagCaptured));
    assert_eq!(g.piece_at(st("B1")), Some(Piece { owner: Seat::S, rank: Rank::Captain }));
}

#[test]
fn no_legal_move_wins() {
    let mut g = game(Seat::S, &[("C12", "S2"), ("B1", "NF"), ("A1", "NM")]);
    g.apply(&mv("C12", "C11")).unwrap();
    assert_eq!(g.status(), won(Seat::S, WinReason::NoLegalMove));
    // and at the very start: South without a move loses
    let mut p = position(Seat::S, &[("B12", "SF"), ("C1", "N2")]);
    p.steps = 0;
    let g = Game::from_position(&p).unwrap();
    assert!(g.legal_moves().is_empty());
}

/// North's only mobile piece, on A2, can only step into the empty camp B3; South's A4 can take
/// that camp and leave North without a move.
fn cornered(quiet: u32) -> Game {
    let mut p = position(
        Seat::S,
        &[
            ("A2", "N4"),
            ("A1", "NM"),
            ("B2", "NM"),
            ("A3", "NM"),
            ("B1", "NF"),
            ("A4", "S5"),
            ("C12", "S2"),
        ],
    );
    p.quiet_steps = Some(quiet);
    Game::from_position(&p).unwrap()
}

#[test]
fn hundred_quiet_steps_draw() {
    let mut g = cornered(98);
    g.apply(&mv("C12", "C11")).unwrap();
    assert!(!g.is_over());
    assert_eq!(g.quiet_steps(), 99);
    let ev = g.apply(&mv("A2", "B3")).unwrap();
    assert_eq!(g.status(), Status::Draw { reason: DrawReason::NoCombat });
    assert_eq!(ev.last(), Some(&Event::GameOver { status: g.status() }));
    // timeouts count as steps
    let mut g = cornered(99);
    g.apply(&Action::Timeout).unwrap();
    assert_eq!(g.status(), Status::Draw { reason: DrawReason::NoCombat });
    // a combat resets the count
    let mut g = game(Seat::S, &with_others(&[("A7", "S5"), ("A6", "N4")]));
    let mut p = g.to_position();
    p.quiet_steps = Some(99);
    g = Game::from_position(&p).unwrap();
    g.apply(&mv("A7", "A6")).unwrap();
    assert!(!g.is_over());
    assert_eq!(g.quiet_steps(), 0);
    // the counter is in the position and the view
    assert_eq!(g.to_position().quiet_steps, Some(0));
    assert_eq!(g.view(Viewer::Spectator).quiet_steps, Some(0));
}

#[test]
fn hundredth_step_leaving_no_move_wins_instead() {
    let mut g = cornered(99);
    g.apply(&mv("A4", "B3")).unwrap();
    assert_eq!(g.status(), won(Seat::S, WinReason::NoLegalMove));
}

#[test]
fn third_timeout_loses() {
    let mut g = game(Seat::S, &with_others(&[]));
    for _ in 0..2 {
        g.apply(&Action::Timeout).unwrap(); // S
        assert!(!g.is_over());
        g.apply(&mv(
            if g.piece_at(st("C1")).is_some() { "C1" } else { "C2" },
            if g.piece_at(st("C1")).is_some() { "C2" } else { "C1" },
        ))
        .unwrap();
    }
    assert_eq!(g.skips(Seat::S), 2);
    let ev = g.apply(&Action::Timeout).unwrap();
    assert!(ev.contains(&Event::Skipped { seat: Seat::S, skips: 3 }));
    assert_eq!(g.status(), won(Seat::N, WinReason::Timeouts));
    // a third timeout takes precedence over the 100-step draw
    let mut p = position(Seat::S, &with_others(&[]));
    p.skips.insert(Seat::S, 2);
    p.quiet_steps = Some(99);
    let mut g = Game::from_position(&p).unwrap();
    g.apply(&Action::Timeout).unwrap();
    assert_eq!(g.status(), won(Seat::N, WinReason::Timeouts));
}

#[test]
fn third_timeout_wins_if_the_opponent_then_has_no_move() {
    let mut p = position(Seat::N, &[("C1", "N2"), ("B12", "SF"), ("A11", "SM")]);
    p.skips.insert(Seat::N, 2);
    let mut g = Game::from_position(&p).unwrap();
    g.apply(&Action::Timeout).unwrap();
    assert_eq!(g.status(), won(Seat::N, WinReason::NoLegalMove));
}

#[test]
fn surrender_any_time() {
    let mut g = game(Seat::S, &with_others(&[]));
    g.apply(&Action::Surrender { seat: Seat::N }).unwrap();
    assert_eq!(g.status(), won(Seat::S, WinReason::Surrender));
    let mut g = game(Seat::S, &with_others(&[]));
    g.apply(&Action::Surrender { seat: Seat::S }).unwrap();
    assert_eq!(g.status(), won(Seat::N, WinReason::Surrender));
}

#[test]
fn draw_offer_accept_and_refuse() {
    let mut g = game(Seat::S, &with_others(&[]));
    // an offer out of turn, accepted
    g.apply(&Action::OfferDraw { seat: Seat::N }).unwrap();
    assert_eq!(g.apply(&Action::AcceptDraw { seat: Seat::N }), Err(RuleError::OwnDrawOffer));
    assert_eq!(g.apply(&Action::OfferDraw { seat: Seat::S }), Err(RuleError::DrawOfferPending));
    let ev = g.apply(&Action::AcceptDraw { seat: Seat::S }).unwrap();
    assert_eq!(g.status(), Status::Draw { reason: DrawReason::Agreement });
    assert_eq!(ev.last(), Some(&Event::GameOver { status: g.status() }));
    // refused
    let mut g = game(Seat::S, &with_others(&[]));
    g.apply(&Action::OfferDraw { seat: Seat::S }).unwrap();
    g.apply(&Action::DeclineDraw { seat: Seat::N }).unwrap();
    assert!(g.draw_offer().is_none());
    assert!(!g.is_over());
}

#[test]
fn draw_offer_lapses_when_the_opponents_turn_ends() {
    // offered on its own turn: survives its own move, lapses with the opponent's
    let mut g = game(Seat::S, &with_others(&[]));
    g.apply(&Action::OfferDraw { seat: Seat::S }).unwrap();
    let ev = g.apply(&mv("C12", "C11")).unwrap();
    assert!(!ev.iter().any(|e| matches!(e, Event::DrawOfferExpired { .. })));
    assert_eq!(g.draw_offer().map(|o| o.0), Some(Seat::S));
    let ev = g.apply(&mv("C1", "C2")).unwrap();
    assert!(ev.contains(&Event::DrawOfferExpired { seat: Seat::S }));
    assert!(g.draw_offer().is_none());
    assert_eq!(g.apply(&Action::AcceptDraw { seat: Seat::N }), Err(RuleError::NoDrawOffer));
    // offered during the opponent's turn: lapses when that turn ends, by a timeout too
    let mut g = game(Seat::S, &with_others(&[]));
    g.apply(&Action::OfferDraw { seat: Seat::N }).unwrap();
    let ev = g.apply(&Action::Timeout).unwrap();
    assert!(ev.contains(&Event::DrawOfferExpired { seat: Seat::N }));
}

#[test]
fn draw_reoffer_after_ten_steps() {
    let mut g = game(Seat::S, &with_others(&[]));
    g.apply(&Action::OfferDraw { seat: Seat::S }).unwrap(); // at step 0
    g.apply(&Action::DeclineDraw { seat: Seat::N }).unwrap();
    let shuffle = [("C12", "C11"), ("C1", "C2"), ("C11", "C12"), ("C2", "C1")];
    for i in 0..9 {
        assert!(!g.can_offer_draw(Seat::S), "step {}", g.steps());
        assert_eq!(
            g.clone().apply(&Action::OfferDraw { seat: Seat::S }),
            Err(RuleError::DrawOfferTooSoon)
        );
        let (a, b) = shuffle[i % 4];
        g.apply(&mv(a, b)).unwrap();
    }
    assert_eq!(g.steps(), 9);
    assert!(!g.can_offer_draw(Seat::S));
    // North was not limited by South's offer
    assert!(g.can_offer_draw(Seat::N));
    g.apply(&Action::Timeout).unwrap();
    assert_eq!(g.steps(), 10);
    assert!(g.can_offer_draw(Seat::S));
    g.apply(&Action::OfferDraw { seat: Seat::S }).unwrap();
}

// ---------- §7 views, positions ----------

#[test]
fn views_hide_enemy_ranks_whatever_info_mode() {
    let mut p = position(Seat::S, &with_others(&[("A7", "S5"), ("A6", "N4")]));
    p.options.info_mode = InfoMode::AllOpen;
    let g = Game::from_position(&p).unwrap();
    let v = g.view(Viewer::Seats(SeatSet::one(Seat::S)));
    assert_eq!(v.variant, Variant::HiddenFront);
    assert_eq!(v.pieces[&st("A6")].rank(), None);
    assert_eq!(v.pieces[&st("A7")].rank(), Some(Rank::Colonel));
    assert!(g.view(Viewer::Spectator).pieces.values().all(|p| p.rank().is_none()));
    assert_eq!(v.skips.keys().copied().collect::<Vec<_>>(), [Seat::N, Seat::S]);
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["variant"], "hidden_front");
    assert_eq!(json["pieces"]["A6"], "N?");
}

#[test]
fn positions_round_trip_and_refuse_the_other_board() {
    let g = game(Seat::N, &with_others(&[("A7", "S5")]));
    let p = g.to_position();
    let json = serde_json::to_value(&p).unwrap();
    assert_eq!(json["variant"], "hidden_front");
    assert_eq!(json["timeouts"], serde_json::json!({"N": 0, "S": 0}));
    assert_eq!(json["quiet_steps"], 0);
    assert!(json.get("skips").is_none());
    let p2: Position = serde_json::from_value(json).unwrap();
    assert_eq!(p2, p);
    assert_eq!(Game::from_position(&p2).unwrap().to_position(), p);
    // defaults: mines mutual; an explicit option wins
    let p: Position =
        serde_json::from_str(r#"{"variant":"hidden_front","turn":"S","pieces":{}}"#).unwrap();
    assert_eq!(p.options.mines, MineRule::Mutual);
    let p: Position = serde_json::from_str(
        r#"{"variant":"hidden_front","turn":"S","pieces":{},"options":{"mines":"invincible"}}"#,
    )
    .unwrap();
    assert_eq!(p.options.mines, MineRule::Invincible);
    // the four-player game is the default and keeps its defaults
    let p: Position = serde_json::from_str(r#"{"turn":"S","pieces":{}}"#).unwrap();
    assert_eq!((p.variant, p.options.mines), (Variant::FourPlayer, MineRule::Invincible));
    let p: Position =
        serde_json::from_str(r#"{"variant":"siguo","turn":"S","pieces":{}}"#).unwrap();
    assert_eq!(p.variant, Variant::FourPlayer);
    // stations and seats of the other game are refused
    let bad = position(Seat::S, &[("Sa1", "S9")]);
    assert_eq!(Game::from_position(&bad).unwrap_err(), PositionError::StationNotOnBoard(st("Sa1")));
    let bad = position(Seat::S, &[("A1", "E9")]);
    assert_eq!(Game::from_position(&bad).unwrap_err(), PositionError::SeatNotInGame(Seat::E));
    let bad = position(Seat::W, &[]);
    assert_eq!(Game::from_position(&bad).unwrap_err(), PositionError::SeatNotInGame(Seat::W));
    let mut four = position(Seat::S, &[("A1", "S9")]);
    four.variant = Variant::FourPlayer;
    assert_eq!(Game::from_position(&four).unwrap_err(), PositionError::StationNotOnBoard(st("A1")));
}

#[test]
fn records_name_their_variant_and_replay() {
    let o = Options::for_variant(Variant::HiddenFront);
    let deps = vec![deployment(Seat::S, 3), deployment(Seat::N, 4)];
    let mut g = Game::start(Variant::HiddenFront, o, &deps).unwrap();
    let mut actions = vec![];
    for _ in 0..30 {
        let m = g.legal_moves().pop().unwrap();
        let a = Action::Move { from: m.from, to: m.to };
        g.apply(&a).unwrap();
        actions.push(a);
        if g.is_over() {
            break;
        }
    }
    let rec = GameRecord { variant: Variant::HiddenFront, options: o, deployments: deps, actions };
    let json = serde_json::to_value(&rec).unwrap();
    assert_eq!(json["variant"], "hidden_front");
    let back: GameRecord = serde_json::from_value(json).unwrap();
    assert_eq!(back.replay().unwrap(), g);
    // Hidden Front's options are its own (its fixed limits shown, no four-player option)
    assert_eq!(json_options(&rec)["max_timeouts"], 3);
    assert!(json_options(&rec).get("max_steps").is_none());
    // an old record (no variant; options written in full, as four-player options) is four-player
    let mut old = serde_json::to_value(&back).unwrap();
    old.as_object_mut().unwrap().remove("variant");
    old["options"] = serde_json::to_value(o).unwrap();
    let old: GameRecord = serde_json::from_value(old).unwrap();
    assert_eq!(old.variant, Variant::FourPlayer);
    assert!(old.replay().is_err());
    // statuses serialize with the winning seat
    let s = serde_json::to_value(won(Seat::S, WinReason::FlagCaptured)).unwrap();
    assert_eq!(s, serde_json::json!({"state": "won", "winner": "S", "reason": "flag_captured"}));
    assert_eq!(serde_json::from_value::<Status>(s).unwrap(), won(Seat::S, WinReason::FlagCaptured));
    let d = serde_json::to_value(Status::Draw { reason: DrawReason::NoCombat }).unwrap();
    assert_eq!(d["reason"], "no_combat");
    assert_eq!(won(Seat::N, WinReason::Timeouts).is_winner(Seat::N), Some(true));
    assert_eq!(won(Seat::N, WinReason::Timeouts).is_winner(Seat::S), Some(false));
}

fn json_options(rec: &GameRecord) -> serde_json::Value {
    serde_json::to_value(rec).unwrap()["options"].clone()
}
