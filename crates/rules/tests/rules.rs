//! One test (at least) per rule of rules.md, on sparse positions.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use siguo_rules::*;
use std::collections::BTreeMap;

fn st(n: &str) -> Station {
    Station::parse(n).unwrap_or_else(|| panic!("bad station {n}"))
}

fn game_opts(turn: Seat, pieces: &[(&str, &str)], options: Options) -> Game {
    let p = Position {
        variant: Variant::FourPlayer,
        turn,
        pieces: pieces.iter().map(|(s, p)| (st(s), Piece::parse(p).unwrap())).collect(),
        options,
        eliminated: vec![],
        skips: BTreeMap::new(),
        steps: 0,
        quiet_steps: None,
    };
    Game::from_position(&p).unwrap()
}

fn game(turn: Seat, pieces: &[(&str, &str)]) -> Game {
    game_opts(turn, pieces, Options::default())
}

fn dests(g: &Game, from: &str) -> Vec<String> {
    g.legal_moves_from(st(from)).iter().map(|m| m.to.name().to_string()).collect()
}

fn can(g: &Game, from: &str, to: &str) -> bool {
    let ok = dests(g, from).iter().any(|d| d == to);
    // the generator and the checker agree
    assert_eq!(ok, g.clone().apply(&mv(from, to)).is_ok(), "{from}-{to}");
    ok
}

fn mv(a: &str, b: &str) -> Action {
    Action::Move { from: st(a), to: st(b) }
}

fn path(g: &Game, from: &str, to: &str) -> Vec<String> {
    let m = g.legal_moves_from(st(from)).into_iter().find(|m| m.to == st(to)).expect("move");
    m.path.iter().map(|s| s.name().to_string()).collect()
}

/// Filler pieces so that no seat is eliminated for lack of moves in these small positions.
const OTHERS: [(&str, &str); 4] = [("Nc6", "N2"), ("Ec6", "E2"), ("Sc6", "S2"), ("Wc6", "W2")];

fn with_others<'a>(v: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut out: Vec<(&str, &str)> = v.to_vec();
    for o in OTHERS {
        if !out.iter().any(|(s, _)| *s == o.0) {
            out.push(o);
        }
    }
    out
}

// ---------- §5 moving ----------

#[test]
fn road_step_one_station() {
    let g = game(Seat::S, &[("Sc3", "S5")]);
    let mut d = dests(&g, "Sc3");
    d.sort();
    // camp: 4 orthogonal + 4 diagonal
    assert_eq!(
        d,
        ["Sb2", "Sb4", "Sc2", "Sc4", "Sd2", "Sd4", "Sd3", "Sb3"]
            .iter()
            .map(|s| s.to_string())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
}

#[test]
fn off_rail_piece_moves_one_step_even_onto_rail() {
    let g = game(Seat::S, &[("Sb3", "S5")]);
    assert!(can(&g, "Sb3", "Sa3"));
    assert!(!can(&g, "Sb3", "Sa1"));
    assert!(!can(&g, "Sb3", "Sa5"));
}

#[test]
fn rail_slide_along_line() {
    let g = game(Seat::S, &[("Sa5", "S5")]);
    assert!(can(&g, "Sa5", "Sa1"));
    assert!(can(&g, "Sa5", "Ca1"));
    assert!(can(&g, "Sa5", "Ne5")); // long line to the far end
    assert!(can(&g, "Sa5", "We1")); // round the arc line
    assert!(can(&g, "Sa5", "We5"));
    assert!(can(&g, "Sa5", "Se5")); // row 5
    assert_eq!(path(&g, "Sa5", "Ca2"), ["Sa5", "Sa4", "Sa3", "Sa2", "Sa1", "Ca1", "Ca2"]);
    // no turning for non-engineers
    assert!(!can(&g, "Sa5", "Sb1"));
    assert!(!can(&g, "Sa5", "Cb1"));
    assert!(!can(&g, "Sa5", "Cb2"));
}

#[test]
fn arcs_connect_neighbours() {
    let g = game(Seat::S, &[("Sa1", "S5")]);
    assert!(can(&g, "Sa1", "We1"));
    assert_eq!(path(&g, "Sa1", "We3"), ["Sa1", "We1", "We2", "We3"]);
    let g = game(Seat::S, &[("Se1", "S5")]);
    assert!(can(&g, "Se1", "Ea1"));
    assert!(can(&g, "Se1", "Ea5"));
}

#[test]
fn centre_corner_does_not_block_arc() {
    let g = game(Seat::S, &[("Sa3", "S5"), ("Ca1", "E3")]);
    assert!(can(&g, "Sa3", "We1"));
    assert!(can(&g, "Sa3", "We5"));
    // but it blocks the long line
    assert!(can(&g, "Sa3", "Ca1"));
    assert!(!can(&g, "Sa3", "Ca2"));
}

#[test]
fn front_row_slide_does_not_take_arc() {
    let g = game(Seat::S, &[("Sc1", "S5")]);
    assert!(can(&g, "Sc1", "Sa1"));
    assert!(can(&g, "Sc1", "Se1"));
    assert!(!can(&g, "Sc1", "We1"));
    assert!(!can(&g, "Sc1", "Ea1"));
    // the middle line
    assert!(can(&g, "Sc1", "Nc1"));
    assert!(!can(&g, "Sc1", "Nc2"));
}

#[test]
fn b1_d1_have_no_centre_link() {
    let g = game(Seat::S, &[("Sb1", "S5"), ("Sd1", "S4")]);
    assert!(!can(&g, "Sb1", "Ca1"));
    assert!(!can(&g, "Sb1", "Cb1"));
    assert!(!can(&g, "Sd1", "Cc1"));
    assert!(!can(&g, "Sd1", "Cb1"));
}

#[test]
fn engineer_turns_other_pieces_do_not() {
    let g = game(Seat::S, &[("Sa5", "S1"), ("Sa3", "S2")]);
    // blocked on the column; goes round row 5 and up column e, across row 1
    assert!(can(&g, "Sa5", "Se1"));
    assert!(can(&g, "Sa5", "Sc1"));
    assert!(can(&g, "Sa5", "Cb2"));
    assert!(can(&g, "Sa5", "Nc1"));
    assert!(can(&g, "Sa5", "Sa4"));
    // shortest path
    assert_eq!(
        path(&g, "Sa5", "Sc1"),
        ["Sa5", "Sb5", "Sc5", "Sd5", "Se5", "Se4", "Se3", "Se2", "Se1", "Sd1", "Sc1"]
    );
    let g2 = game(Seat::S, &[("Sa5", "S2"), ("Sa3", "S3")]);
    assert!(!can(&g2, "Sa5", "Se1"));
    assert!(can(&g2, "Sa5", "Se5"));
    // engineer path through the arc
    let g3 = game(Seat::S, &[("Sa2", "S1")]);
    assert!(can(&g3, "Sa2", "Wc5"));
}

#[test]
fn engineer_off_rail_steps_once() {
    let g = game(Seat::S, &[("Sb3", "S1")]);
    assert!(can(&g, "Sb3", "Sa3"));
    assert!(!can(&g, "Sb3", "Sa1"));
}

#[test]
fn no_passing_pieces() {
    let g = game(Seat::S, &[("Sa5", "S5"), ("Sa2", "E3")]);
    assert!(can(&g, "Sa5", "Sa2")); // attack
    assert!(!can(&g, "Sa5", "Sa1"));
    let g = game(Seat::S, &[("Sa5", "S1"), ("Sa2", "E3"), ("Sb5", "E4")]);
    assert!(can(&g, "Sa5", "Sa2"));
    assert!(can(&g, "Sa5", "Sb5"));
    assert!(!can(&g, "Sa5", "Sa1"));
    assert!(!can(&g, "Sa5", "Sc5"));
}

#[test]
fn camps() {
    // an occupied camp cannot be attacked
    let g = game(Seat::S, &[("Sb3", "S9"), ("Sb2", "E2")]);
    assert!(!can(&g, "Sb3", "Sb2"));
    // nor entered by a friend
    let g = game(Seat::S, &[("Sb3", "S9"), ("Sb2", "N2")]);
    assert!(!can(&g, "Sb3", "Sb2"));
    // an empty camp of any seat may be entered by anyone
    let g = game(Seat::S, &[("Eb1", "S9")]);
    assert!(can(&g, "Eb1", "Eb2"));
    // a piece in a camp may attack out of it
    let g = game(Seat::S, &[("Sb2", "S9"), ("Sa1", "E2")]);
    assert!(can(&g, "Sb2", "Sa1"));
}

#[test]
fn headquarters_freeze() {
    let g = game(Seat::S, &[("Sb6", "S9"), ("Sd6", "E9"), ("Sa6", "S3")]);
    assert!(dests(&g, "Sb6").is_empty());
    assert!(g.clone().apply(&mv("Sb6", "Sb5")).unwrap_err() == RuleError::Immovable);
    // headquarters can be attacked / entered
    assert!(!can(&g, "Sa6", "Sb6")); // own piece
    let g = game(Seat::S, &[("Sc6", "S9"), ("Sd6", "E5")]);
    assert!(can(&g, "Sc6", "Sd6"));
}

#[test]
fn flag_capturer_freezes_in_headquarters() {
    let g = game(Seat::S, &with_others(&[("Eb5", "S5"), ("Eb6", "EF"), ("Ea1", "E3")]));
    let mut g2 = g.clone();
    g2.apply(&mv("Eb5", "Eb6")).unwrap();
    assert!(g2.is_eliminated(Seat::E));
    assert_eq!(g2.piece_at(st("Eb6")), Some(Piece::parse("S5").unwrap()));
    // S's next turn: the capturer cannot move
    while g2.turn() != Some(Seat::S) {
        g2.apply(&Action::Timeout).unwrap();
    }
    assert!(dests(&g2, "Eb6").is_empty());
}

#[test]
fn mines_and_flags_never_move() {
    let g = game(Seat::S, &[("Sa5", "SM"), ("Sb5", "SF"), ("Sc5", "SB")]);
    assert!(dests(&g, "Sa5").is_empty());
    assert!(dests(&g, "Sb5").is_empty());
    assert!(!dests(&g, "Sc5").is_empty()); // bombs move
    assert_eq!(g.clone().apply(&mv("Sa5", "Sa4")), Err(RuleError::Immovable));
}

#[test]
fn teammates_block_and_cannot_be_attacked() {
    let g = game(Seat::S, &[("Sa5", "S5"), ("Sa3", "N2"), ("Sb5", "S2")]);
    assert!(!can(&g, "Sa5", "Sa3"));
    assert!(!can(&g, "Sa5", "Sa2"));
    assert!(!can(&g, "Sa5", "Sb5"));
    let g = game(Seat::S, &[("Sa5", "S1"), ("Sa4", "N2"), ("Sb5", "N2")]);
    assert!(!can(&g, "Sa5", "Sa3"));
}

#[test]
fn wrong_seat_and_errors() {
    let g = game(Seat::S, &[("Sa5", "S5"), ("Na5", "N5")]);
    assert_eq!(g.clone().apply(&mv("Na5", "Na4")), Err(RuleError::NotYourPiece));
    assert_eq!(g.clone().apply(&mv("Sa4", "Sa3")), Err(RuleError::NoPiece));
    assert_eq!(g.clone().apply(&mv("Sa5", "Sc3")), Err(RuleError::IllegalMove));
}

#[test]
fn flag_capture_option() {
    let pcs =
        with_others(&[("Eb5", "S9"), ("Ea6", "S1"), ("Ed5", "SB"), ("Eb6", "EF"), ("Ed6", "EF")]);
    let g = game(Seat::S, &pcs);
    assert!(can(&g, "Eb5", "Eb6"));
    let o = Options { flag_capture: FlagCapture::NotCommander, ..Options::default() };
    let g = game_opts(Seat::S, &pcs, o);
    assert!(!can(&g, "Eb5", "Eb6"));
    assert!(can(&g, "Ea6", "Eb6"));
    assert!(can(&g, "Ed5", "Ed6"));
    let o = Options { flag_capture: FlagCapture::EngineerOnly, ..Options::default() };
    let g = game_opts(Seat::S, &pcs, o);
    assert!(!can(&g, "Eb5", "Eb6"));
    assert!(can(&g, "Ea6", "Eb6"));
    assert!(!can(&g, "Ed5", "Ed6"));
}

/// rules.md §5: the restriction is by station. A forbidden piece may not enter an enemy
/// headquarters at all, empty or not, flag or not, so the legal moves (from either generator)
/// do not tell which headquarters holds the flag.
#[test]
fn flag_capture_restricts_by_station() {
    // East's flag in Eb6; Ed6 holds a mine; the West headquarters We6... is empty here
    let pcs = with_others(&[
        ("Eb5", "S9"),
        ("Ed5", "S9"),
        ("Ea6", "S1"),
        ("Ee6", "S1"),
        ("Eb6", "EF"),
        ("Ed6", "EM"),
    ]);
    for (o, allowed) in [
        (FlagCapture::Any, true),
        (FlagCapture::NotCommander, false),
        (FlagCapture::EngineerOnly, false),
    ] {
        let g = game_opts(Seat::S, &pcs, Options { flag_capture: o, ..Options::default() });
        // the commander: both headquarters alike, flag or mine
        assert_eq!(can(&g, "Eb5", "Eb6"), allowed, "{o:?} commander → flag");
        assert_eq!(can(&g, "Ed5", "Ed6"), allowed, "{o:?} commander → mine");
        // the engineer may always
        assert!(can(&g, "Ea6", "Eb6") && can(&g, "Ee6", "Ed6"), "{o:?} engineer");
    }
    // an empty enemy headquarters is closed too
    let pcs = with_others(&[("Eb5", "S9"), ("Ed6", "EF")]);
    let g = game_opts(
        Seat::S,
        &pcs,
        Options { flag_capture: FlagCapture::EngineerOnly, ..Options::default() },
    );
    assert!(!can(&g, "Eb5", "Eb6"), "empty enemy headquarters");
}

// ---------- §6 combat ----------

fn combat(
    att: &str,
    def: &str,
    options: Options,
) -> (Option<CombatOutcome>, Option<Piece>, Vec<Event>) {
    let mut g = game_opts(
        Seat::S,
        &with_others(&[("Sa2", att), ("Sa1", def), ("Ea5", "E3"), ("Wa5", "W3")]),
        options,
    );
    let ev = g.apply(&mv("Sa2", "Sa1")).unwrap();
    let c = match &ev[0] {
        Event::Moved { combat, .. } => *combat,
        e => panic!("{e:?}"),
    };
    (c, g.piece_at(st("Sa1")), ev)
}

fn p(s: &str) -> Option<Piece> {
    Piece::parse(s)
}

#[test]
fn combat_bomb() {
    let d = Options::default();
    assert_eq!(combat("SB", "E9", d).0, Some(CombatOutcome::BothRemoved));
    assert_eq!(combat("SB", "E9", d).1, None);
    assert_eq!(combat("S1", "EB", d).0, Some(CombatOutcome::BothRemoved));
    assert_eq!(combat("SB", "EM", d).0, Some(CombatOutcome::BothRemoved));
    assert_eq!(combat("SB", "EB", d).0, Some(CombatOutcome::BothRemoved));
}

#[test]
fn combat_bomb_hits_flag_captures_it() {
    let (c, at, ev) = combat("SB", "EF", Options::default());
    assert_eq!(c, Some(CombatOutcome::BothRemoved));
    assert_eq!(at, None);
    assert!(ev.contains(&Event::Eliminated { seat: Seat::E, reason: ElimReason::FlagCaptured }));
}

#[test]
fn combat_flag() {
    let (c, at, ev) = combat("S2", "EF", Options::default());
    assert_eq!(c, Some(CombatOutcome::AttackerWon));
    assert_eq!(at, p("S2"));
    assert_eq!(ev[1], Event::Eliminated { seat: Seat::E, reason: ElimReason::FlagCaptured });
}

#[test]
fn combat_mine() {
    let d = Options::default();
    assert_eq!(combat("S1", "EM", d).0, Some(CombatOutcome::AttackerWon));
    assert_eq!(combat("S1", "EM", d).1, p("S1"));
    assert_eq!(combat("S9", "EM", d).0, Some(CombatOutcome::DefenderWon));
    assert_eq!(combat("S9", "EM", d).1, p("EM"));
    let m = Options { mines: MineRule::Mutual, ..d };
    assert_eq!(combat("S9", "EM", m).0, Some(CombatOutcome::BothRemoved));
    assert_eq!(combat("S9", "EM", m).1, None);
    assert_eq!(combat("S1", "EM", m).0, Some(CombatOutcome::AttackerWon));
}

#[test]
fn combat_ranks() {
    let d = Options::default();
    assert_eq!(combat("S9", "E8", d).0, Some(CombatOutcome::AttackerWon));
    assert_eq!(combat("S9", "E8", d).1, p("S9"));
    assert_eq!(combat("S2", "E3", d).0, Some(CombatOutcome::DefenderWon));
    assert_eq!(combat("S2", "E3", d).1, p("E3"));
    assert_eq!(combat("S5", "E5", d).0, Some(CombatOutcome::BothRemoved));
    assert_eq!(combat("S5", "E5", d).1, None);
    assert_eq!(combat("S2", "E1", d).0, Some(CombatOutcome::AttackerWon));
}

#[test]
fn commander_removed_reveals_flag() {
    let g0 =
        game(Seat::S, &with_others(&[("Sa2", "S9"), ("Sa1", "E9"), ("Eb6", "EF"), ("Sb6", "SF")]));
    let mut g = g0.clone();
    let ev = g.apply(&mv("Sa2", "Sa1")).unwrap();
    assert_eq!(ev[1], Event::FlagRevealed { seat: Seat::S, station: st("Sb6") });
    assert_eq!(ev[2], Event::FlagRevealed { seat: Seat::E, station: st("Eb6") });
    assert!(g.flag_revealed(Seat::S) && g.flag_revealed(Seat::E));
    // visible to everybody
    for v in [
        Viewer::Spectator,
        Viewer::Seats(SeatSet::one(Seat::W)),
        Viewer::Seats(SeatSet::one(Seat::N)),
    ] {
        let view = g.view(v);
        assert_eq!(view.pieces[&st("Eb6")].rank(), Some(Rank::Flag));
        assert_eq!(view.pieces[&st("Sb6")].rank(), Some(Rank::Flag));
        assert_eq!(
            view.pieces[&st("Wc6")].rank().is_some(),
            v == Viewer::Seats(SeatSet::one(Seat::W))
        );
    }
    // commander lost attacking a mine
    let mut g = game(Seat::S, &with_others(&[("Sa2", "S9"), ("Sa1", "EM"), ("Sb6", "SF")]));
    let ev = g.apply(&mv("Sa2", "Sa1")).unwrap();
    assert_eq!(ev[1], Event::FlagRevealed { seat: Seat::S, station: st("Sb6") });
}

// ---------- §1 / §7 turns, elimination, results ----------

#[test]
fn turn_order_and_event_order() {
    let mut g = game(Seat::N, &with_others(&[]));
    let ev = g.apply(&mv("Nc6", "Nc5")).unwrap();
    assert!(matches!(ev[0], Event::Moved { seat: Seat::N, .. }));
    assert_eq!(ev[1], Event::Turn { seat: Seat::E, steps: 1 });
    g.apply(&mv("Ec6", "Ec5")).unwrap();
    assert_eq!(g.turn(), Some(Seat::S));
    g.apply(&mv("Sc6", "Sc5")).unwrap();
    assert_eq!(g.turn(), Some(Seat::W));
    g.apply(&mv("Wc6", "Wc5")).unwrap();
    assert_eq!(g.turn(), Some(Seat::N));
    assert_eq!(g.steps(), 4);
}

#[test]
fn eliminated_seats_are_skipped() {
    let mut g = game(Seat::N, &with_others(&[]));
    g.apply(&Action::Surrender { seat: Seat::E }).unwrap();
    assert!(g.piece_at(st("Ec6")).is_none(), "pieces of an eliminated seat are removed");
    g.apply(&mv("Nc6", "Nc5")).unwrap();
    assert_eq!(g.turn(), Some(Seat::S));
    g.apply(&mv("Sc6", "Sc5")).unwrap();
    assert_eq!(g.turn(), Some(Seat::W));
    g.apply(&mv("Wc6", "Wc5")).unwrap();
    assert_eq!(g.turn(), Some(Seat::N));
}

#[test]
fn no_legal_move_at_turn_start_eliminates() {
    // E has only a mine and a flag
    let mut g =
        game(Seat::N, &[("Nc6", "N2"), ("Ea5", "EM"), ("Eb6", "EF"), ("Sc6", "S2"), ("Wc6", "W2")]);
    let ev = g.apply(&mv("Nc6", "Nc5")).unwrap();
    assert_eq!(ev[1], Event::Eliminated { seat: Seat::E, reason: ElimReason::NoLegalMove });
    assert_eq!(ev[2], Event::Turn { seat: Seat::S, steps: 1 });
    assert!(g.piece_at(st("Ea5")).is_none());
    assert_eq!(g.elimination(Seat::E), Some(ElimReason::NoLegalMove));
    // W loses all its moves: surrounded by... simply W surrenders -> NS wins
    let ev = g.apply(&Action::Surrender { seat: Seat::W }).unwrap();
    assert_eq!(ev[0], Event::Eliminated { seat: Seat::W, reason: ElimReason::Surrendered });
    assert_eq!(
        ev[1],
        Event::GameOver {
            status: Status::Won { winner: Team::NS, reason: WinReason::Elimination }
        }
    );
    assert!(g.is_over());
    assert_eq!(g.turn(), None);
    assert_eq!(g.clone().apply(&Action::Timeout), Err(RuleError::GameOver));
}

#[test]
fn blocked_piece_counts_as_no_move() {
    // E's only piece is boxed in by its own mines
    let mut g = game(
        Seat::N,
        &[
            ("Nc6", "N2"),
            ("Ea6", "E3"),
            ("Ea5", "EM"),
            ("Eb5", "EM"),
            ("Eb6", "EF"),
            ("Sc6", "S2"),
            ("Wc6", "W2"),
        ],
    );
    let ev = g.apply(&mv("Nc6", "Nc5")).unwrap();
    assert_eq!(ev[1], Event::Eliminated { seat: Seat::E, reason: ElimReason::NoLegalMove });
}

#[test]
fn surrender_any_time_passes_turn_if_own() {
    let mut g = game(Seat::N, &with_others(&[]));
    let ev = g.apply(&Action::Surrender { seat: Seat::N }).unwrap();
    assert_eq!(ev[0], Event::Eliminated { seat: Seat::N, reason: ElimReason::Surrendered });
    assert_eq!(ev[1], Event::Turn { seat: Seat::E, steps: 0 });
    assert_eq!(
        g.clone().apply(&Action::Surrender { seat: Seat::N }),
        Err(RuleError::SeatEliminated)
    );
    // not its turn: the turn stays
    let ev = g.apply(&Action::Surrender { seat: Seat::W }).unwrap();
    assert_eq!(ev, vec![Event::Eliminated { seat: Seat::W, reason: ElimReason::Surrendered }]);
    assert_eq!(g.turn(), Some(Seat::E));
}

#[test]
fn skips_and_too_many_skips() {
    let o = Options { max_skips: 2, ..Options::default() };
    let mut g = game_opts(Seat::N, &with_others(&[]), o);
    let ev = g.apply(&Action::Timeout).unwrap();
    assert_eq!(ev[0], Event::Skipped { seat: Seat::N, skips: 1 });
    assert_eq!(ev[1], Event::Turn { seat: Seat::E, steps: 1 });
    for _ in 0..3 {
        g.apply(&Action::Timeout).unwrap();
    }
    let ev = g.apply(&Action::Timeout).unwrap();
    assert_eq!(ev[0], Event::Skipped { seat: Seat::N, skips: 2 });
    assert_eq!(ev[1], Event::Eliminated { seat: Seat::N, reason: ElimReason::TooManySkips });
    assert_eq!(g.steps(), 5);
    assert_eq!(g.skips(Seat::N), 2);
}

#[test]
fn step_limit_draw() {
    let o = Options { max_steps: 50, ..Options::default() };
    let mut g =
        game_opts(Seat::N, &[("Nc6", "N2"), ("Ec6", "E2"), ("Sc6", "S2"), ("Wc6", "W2")], o);
    let mut last = vec![];
    let mut up = true;
    while !g.is_over() {
        let seat = g.turn().unwrap();
        let (a, b) = if up { ("c6", "c5") } else { ("c5", "c6") };
        let from = format!("{}{}", seat.letter(), a);
        let to = format!("{}{}", seat.letter(), b);
        last = g.apply(&mv(&from, &to)).unwrap();
        if seat == Seat::W {
            up = !up;
        }
    }
    assert_eq!(g.steps(), 50);
    assert_eq!(g.status(), Status::Draw { reason: DrawReason::StepLimit });
    assert_eq!(
        last.last(),
        Some(&Event::GameOver { status: Status::Draw { reason: DrawReason::StepLimit } })
    );
}

#[test]
fn agreed_draw() {
    let mut g = game(Seat::N, &with_others(&[]));
    let ev = g.apply(&Action::AgreedDraw).unwrap();
    assert_eq!(
        ev,
        vec![Event::GameOver { status: Status::Draw { reason: DrawReason::Agreement } }]
    );
    assert!(g.is_over());
}

#[test]
fn draw_offer_accept_all() {
    let mut g = game(Seat::N, &with_others(&[]));
    g.apply(&Action::OfferDraw { seat: Seat::E }).unwrap();
    assert_eq!(g.apply(&Action::OfferDraw { seat: Seat::S }), Err(RuleError::DrawOfferPending));
    assert_eq!(g.apply(&Action::AcceptDraw { seat: Seat::E }), Err(RuleError::OwnDrawOffer));
    g.apply(&Action::AcceptDraw { seat: Seat::N }).unwrap();
    g.apply(&Action::AcceptDraw { seat: Seat::S }).unwrap();
    assert!(!g.is_over());
    assert_eq!(g.draw_offer(), Some((Seat::E, vec![Seat::N, Seat::S])));
    let ev = g.apply(&Action::AcceptDraw { seat: Seat::W }).unwrap();
    assert_eq!(ev[1], Event::GameOver { status: Status::Draw { reason: DrawReason::Agreement } });
}

#[test]
fn draw_offer_decline_expire_and_reoffer() {
    let mut g = game(Seat::N, &with_others(&[]));
    assert_eq!(g.apply(&Action::AcceptDraw { seat: Seat::S }), Err(RuleError::NoDrawOffer));
    g.apply(&Action::OfferDraw { seat: Seat::N }).unwrap();
    g.apply(&Action::DeclineDraw { seat: Seat::E }).unwrap();
    assert_eq!(g.draw_offer(), None);
    assert!(!g.can_offer_draw(Seat::N));
    assert_eq!(g.apply(&Action::OfferDraw { seat: Seat::N }), Err(RuleError::DrawOfferTooSoon));
    // E offers during N's turn; it expires when E's turn begins
    g.apply(&Action::OfferDraw { seat: Seat::E }).unwrap();
    let ev = g.apply(&mv("Nc6", "Nc5")).unwrap();
    assert_eq!(ev[1], Event::DrawOfferExpired { seat: Seat::E });
    assert_eq!(ev[2], Event::Turn { seat: Seat::E, steps: 1 });
    // N may offer again only after 10 more of its own turns
    let mut up = [false, true, true, true];
    let mut n_turns = 0;
    loop {
        let seat = g.turn().unwrap();
        if seat == Seat::N {
            n_turns += 1;
            assert_eq!(g.can_offer_draw(Seat::N), n_turns >= 10, "after {n_turns} turns");
            if n_turns == 10 {
                break;
            }
        }
        let (a, b) = if up[seat.index()] { ("c6", "c5") } else { ("c5", "c6") };
        g.apply(&mv(&format!("{}{}", seat.letter(), a), &format!("{}{}", seat.letter(), b)))
            .unwrap();
        up[seat.index()] = !up[seat.index()];
    }
    g.apply(&Action::OfferDraw { seat: Seat::N }).unwrap();
}

#[test]
fn team_wins_when_both_opponents_out() {
    let mut g = game(Seat::N, &with_others(&[]));
    g.apply(&Action::Surrender { seat: Seat::N }).unwrap();
    assert!(!g.is_over());
    g.apply(&Action::Surrender { seat: Seat::S }).unwrap();
    assert_eq!(g.status(), Status::Won { winner: Team::EW, reason: WinReason::Elimination });
}

// ---------- §4 deployment ----------

fn full(seat: Seat) -> Deployment {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seat.index() as u64);
    Deployment::random(seat, &Options::default(), &mut rng)
}

fn find(d: &Deployment, r: Rank) -> Station {
    *d.pieces.iter().find(|(_, &x)| x == r).unwrap().0
}

#[test]
fn deployment_validation_errors() {
    let o = Options::default();
    let d = full(Seat::S);
    assert_eq!(d.validate(&o), Ok(()));
    // outside region
    let mut x = d.clone();
    let r = x.pieces.remove(&st("Sa1")).unwrap();
    x.pieces.insert(st("Na1"), r);
    assert_eq!(x.validate(&o), Err(DeployError::OutsideRegion { station: st("Na1") }));
    // in a camp
    let mut x = d.clone();
    let r = x.pieces.remove(&st("Sa1")).unwrap();
    x.pieces.insert(st("Sb2"), r);
    assert_eq!(x.validate(&o), Err(DeployError::PieceInCamp { station: st("Sb2") }));
    // wrong count
    let mut x = d.clone();
    let s9 = find(&x, Rank::Commander);
    x.pieces.insert(s9, Rank::General);
    assert!(matches!(x.validate(&o), Err(DeployError::WrongCount { .. })));
    // empty station
    let mut x = d.clone();
    x.pieces.remove(&st("Sa1"));
    assert!(matches!(
        x.validate(&o),
        Err(DeployError::WrongCount { .. }) | Err(DeployError::EmptyStation { .. })
    ));
    // flag not in HQ
    let mut x = d.clone();
    let f = find(&x, Rank::Flag);
    let other = st("Sc6");
    let ro = x.pieces[&other];
    x.pieces.insert(other, Rank::Flag);
    x.pieces.insert(f, ro);
    // (whatever `ro` was, a flag out of the headquarters is refused)
    assert!(matches!(
        x.validate(&o),
        Err(DeployError::FlagNotInHeadquarters { .. })
            | Err(DeployError::MineOutsideBackRows { .. })
    ));
}

#[test]
fn deployment_swap_rules() {
    let o = Options::default();
    let mut d = full(Seat::S);
    let flag = find(&d, Rank::Flag);
    let before = d.clone();
    assert_eq!(
        d.swap(flag, st("Sa1"), &o),
        Err(DeployError::FlagNotInHeadquarters { station: st("Sa1") })
    );
    assert_eq!(d, before);
    let mine = find(&d, Rank::Mine);
    let e = d.swap(mine, st("Sc4"), &o).unwrap_err();
    assert!(
        matches!(e, DeployError::MineOutsideBackRows { .. } | DeployError::PieceInCamp { .. }),
        "{e:?}"
    );
    let bomb = find(&d, Rank::Bomb);
    if bomb.row() != 1 {
        let e = d.swap(bomb, st("Sa1"), &o);
        if d.pieces[&st("Sa1")] != Rank::Bomb {
            assert_eq!(e, Err(DeployError::BombInFrontRow { station: st("Sa1") }));
        }
        let bo = Options { bombs_front_row: true, ..o };
        let mut d2 = d.clone();
        let ok = d2.swap(bomb, st("Sa1"), &bo);
        // a mine or flag cannot go to row 1 / out of HQ whatever the option
        if matches!(d.pieces[&st("Sa1")], Rank::Flag | Rank::Mine) {
            assert!(ok.is_err());
        } else {
            assert!(ok.is_ok());
            assert_eq!(d2.validate(&bo), Ok(()));
            assert!(d2.validate(&o).is_err());
        }
    }
    assert_eq!(
        d.swap(st("Sb2"), st("Sa1"), &o),
        Err(DeployError::NoPieceThere { station: st("Sb2") })
    );
    assert_eq!(
        d.swap(st("Na1"), st("Sa1"), &o),
        Err(DeployError::OutsideRegion { station: st("Na1") })
    );
    // a legal swap
    let a = find(&d, Rank::Commander);
    let b = find(&d, Rank::Engineer);
    d.swap(a, b, &o).unwrap();
    assert_eq!(d.pieces[&a], Rank::Engineer);
    assert_eq!(d.validate(&o), Ok(()));
}

#[test]
fn formations_roundtrip() {
    let o = Options::default();
    let d = full(Seat::S);
    let f = d.to_formation();
    assert_eq!(f.0.len(), 25);
    let e = Deployment::from_formation(Seat::E, &f, &o).unwrap();
    assert_eq!(e.seat, Seat::E);
    assert_eq!(e.to_formation(), f);
    let back = Deployment::from_formation(Seat::S, &f, &o).unwrap();
    assert_eq!(back, d);
    let json = serde_json::to_string(&d).unwrap();
    assert!(json.contains("\"Sa1\""));
}

#[test]
fn random_deployments_are_legal_and_varied() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    for o in [Options::default(), Options { bombs_front_row: true, ..Options::default() }] {
        let mut seen = std::collections::HashSet::new();
        let mut bomb_front = 0;
        for i in 0..400 {
            let d = Deployment::random(Seat::from_index(i), &o, &mut rng);
            assert_eq!(d.validate(&o), Ok(()));
            bomb_front +=
                d.pieces.iter().filter(|(s, r)| s.row() == 1 && **r == Rank::Bomb).count();
            seen.insert(serde_json::to_string(&d.to_formation()).unwrap());
        }
        assert!(seen.len() > 390);
        assert_eq!(bomb_front > 0, o.bombs_front_row);
    }
}

// ---------- §11 positions ----------

#[test]
fn position_roundtrip_and_errors() {
    let g = game(Seat::E, &with_others(&[("Sa1", "S9")]));
    let p = g.to_position();
    assert_eq!(Game::from_position(&p).unwrap().to_position(), p);
    let json = serde_json::to_string(&p).unwrap();
    let p2: Position = serde_json::from_str(&json).unwrap();
    assert_eq!(p2, p);
    assert!(serde_json::from_str::<Position>(r#"{"turn":"S","pieces":{"Sa7":"S9"}}"#).is_err());
    assert!(serde_json::from_str::<Position>(r#"{"turn":"S","pieces":{"Sa1":"S0"}}"#).is_err());
    assert!(serde_json::from_str::<Position>(r#"{"turn":"S","pieces":{},"options":{"bogus":1}}"#)
        .is_err());
    let mut bad = p.clone();
    bad.eliminated = vec![Seat::E];
    assert_eq!(Game::from_position(&bad).unwrap_err(), PositionError::TurnEliminated);
    bad.eliminated = vec![Seat::S];
    assert_eq!(Game::from_position(&bad).unwrap_err(), PositionError::EliminatedHasPieces);
    bad.eliminated = vec![];
    bad.options.max_steps = 10;
    assert!(matches!(Game::from_position(&bad).unwrap_err(), PositionError::Options(_)));
}

#[test]
fn referee_action_notation() {
    assert_eq!(Action::parse_referee("Sa1-Ca1"), Some(mv("Sa1", "Ca1")));
    assert_eq!(Action::parse_referee("timeout"), Some(Action::Timeout));
    assert_eq!(Action::parse_referee("draw"), Some(Action::AgreedDraw));
    assert_eq!(Action::parse_referee("surrender W"), Some(Action::Surrender { seat: Seat::W }));
    assert_eq!(Action::parse_referee("surrender X"), None);
    assert_eq!(Action::parse_referee("Sa1-Cz1"), None);
}
