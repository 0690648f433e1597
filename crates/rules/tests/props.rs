//! Property tests over random deployments and random games.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_rules::*;

fn options() -> impl Strategy<Value = Options> {
    (0..3u8, 0..3u8, any::<bool>(), any::<bool>(), 50..=300u32, 1..=6u32).prop_map(
        |(im, fc, mutual, bfr, steps, skips)| Options {
            info_mode: [InfoMode::FourDark, InfoMode::DoubleOpen, InfoMode::AllOpen][im as usize],
            flag_capture: [FlagCapture::Any, FlagCapture::NotCommander, FlagCapture::EngineerOnly]
                [fc as usize],
            mines: if mutual { MineRule::Mutual } else { MineRule::Invincible },
            bombs_front_row: bfr,
            max_steps: steps,
            max_skips: skips,
            ..Options::default()
        },
    )
}

fn viewers(variant: Variant) -> Vec<Viewer> {
    if variant == Variant::HiddenFront {
        let (s, n) = (SeatSet::one(Seat::S), SeatSet::one(Seat::N));
        return vec![Viewer::Seats(s), Viewer::Seats(n), Viewer::Spectator];
    }
    let mut v: Vec<Viewer> = Seat::ALL.iter().map(|&s| Viewer::Seats(SeatSet::one(s))).collect();
    v.push(Viewer::Seats(SeatSet::one(Seat::N).with(Seat::E)));
    v.push(Viewer::Seats(SeatSet::one(Seat::S).with(Seat::W)));
    v.push(Viewer::Spectator);
    v
}

/// The rule of §8 (Hidden Front: §7, no info modes), written independently of the engine.
fn may_see(g: &Game, viewer: Viewer, p: Piece) -> bool {
    if g.variant() == Variant::HiddenFront {
        return g.is_over()
            || (p.rank == Rank::Flag && g.flag_revealed(p.owner))
            || matches!(viewer, Viewer::Seats(set) if set.contains(p.owner));
    }
    if g.is_over() || g.options().info_mode == InfoMode::AllOpen {
        return true;
    }
    if p.rank == Rank::Flag && g.flag_revealed(p.owner) {
        return true;
    }
    match viewer {
        Viewer::Spectator => false,
        Viewer::Seats(set) => {
            set.contains(p.owner)
                || (g.options().info_mode == InfoMode::DoubleOpen
                    && set.seats().any(|s| s.team() == p.owner.team()))
        }
    }
}

fn check_views(g: &Game) {
    for v in viewers(g.variant()) {
        let view = g.view(v);
        let stations = g.variant().board().stations();
        assert_eq!(view.pieces.len(), stations.filter(|s| g.piece_at(*s).is_some()).count());
        for (st, seen) in &view.pieces {
            let truth = g.piece_at(*st).unwrap();
            assert_eq!(seen.owner(), truth.owner);
            let allowed = may_see(g, v, truth);
            match seen.rank() {
                Some(r) => {
                    assert!(allowed, "{v:?} sees {truth} at {st}");
                    assert_eq!(r, truth.rank);
                }
                None => assert!(!allowed, "{v:?} should see {truth} at {st}"),
            }
            let json = serde_json::to_string(seen).unwrap();
            if !allowed {
                assert_eq!(json, format!("\"{}?\"", truth.owner.letter()));
            }
        }
    }
}

fn play(seed: u64, opts: Options, check_everything: bool) -> (Game, GameRecord) {
    play_variant(Variant::FourPlayer, seed, opts, check_everything)
}

fn play_variant(
    variant: Variant,
    seed: u64,
    opts: Options,
    check_everything: bool,
) -> (Game, GameRecord) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let deployments: Vec<Deployment> = variant
        .seats()
        .iter()
        .map(|&s| Deployment::random_for(variant, s, &opts, &mut rng))
        .collect();
    let mut g = Game::start(variant, opts, &deployments).unwrap();
    let four = variant == Variant::FourPlayer;
    let stations = variant.board().stations().map(|s| s.index()).collect::<Vec<_>>();
    let (lo, hi) = (stations[0], stations[stations.len() - 1] + 1);
    let mut record = GameRecord { variant, options: opts, deployments, actions: vec![] };
    // Hidden Front: every combat removes a piece, and 100 quiet steps end the game.
    let max_actions = if four { 10 * opts.max_steps as usize } else { 60 * 100 * 2 };
    let mut n_actions = 0;
    let mut deltas = check_everything.then(|| Deltas::new(&g));
    while !g.is_over() {
        n_actions += 1;
        assert!(n_actions < max_actions, "game does not end");
        let moves = g.legal_moves();
        let mut pairs = Vec::new();
        g.legal_pairs(&mut pairs);
        assert_eq!(pairs, moves.iter().map(|m| (m.from, m.to)).collect::<Vec<_>>());
        assert_eq!(g.legal_move_count(), moves.len());
        assert!(!moves.is_empty(), "the seat to move always has a move");
        for m in &moves {
            assert_eq!(m.path.first(), Some(&m.from));
            assert_eq!(m.path.last(), Some(&m.to));
            for w in m.path.windows(2) {
                assert!(w[0].is_linked(w[1]));
            }
            for s in &m.path[1..m.path.len() - 1] {
                assert!(g.piece_at(*s).is_none(), "path passes a piece");
            }
        }
        if check_everything {
            check_views(&g);
            // every generated move applies
            for m in &moves {
                let mut g2 = g.clone();
                g2.apply(&Action::Move { from: m.from, to: m.to }).unwrap();
            }
            // moves not generated are rejected and leave the game unchanged
            for _ in 0..20 {
                let from = Station::from_index(rng.random_range(lo..hi)).unwrap();
                let to = Station::from_index(rng.random_range(lo..hi)).unwrap();
                if moves.iter().any(|m| m.from == from && m.to == to) {
                    continue;
                }
                let mut g2 = g.clone();
                assert!(g2.apply(&Action::Move { from, to }).is_err());
                assert_eq!(g2, g);
            }
        }
        let roll = rng.random_range(0..1000);
        let action = if roll < 15 {
            Action::Timeout
        } else if roll < 17 {
            Action::Surrender { seat: Seat::from_index(rng.random_range(0..4)) }
        } else if roll < 22 {
            Action::OfferDraw { seat: Seat::from_index(rng.random_range(0..4)) }
        } else if roll < 27 {
            Action::AcceptDraw { seat: Seat::from_index(rng.random_range(0..4)) }
        } else if roll < 30 {
            Action::DeclineDraw { seat: Seat::from_index(rng.random_range(0..4)) }
        } else {
            let m = &moves[rng.random_range(0..moves.len())];
            Action::Move { from: m.from, to: m.to }
        };
        let before = g.clone();
        match g.apply(&action) {
            Ok(ev) => {
                assert!(!ev.is_empty());
                if g.is_over() {
                    assert!(matches!(ev.last(), Some(Event::GameOver { .. })));
                } else if matches!(action, Action::Move { .. } | Action::Timeout) {
                    assert_eq!(
                        ev.last(),
                        Some(&Event::Turn { seat: g.turn().unwrap(), steps: g.steps() })
                    );
                }
                record.actions.push(action);
            }
            Err(_) => assert_eq!(g, before, "a refused action changed the game"),
        }
        if let Some(d) = deltas.as_mut() {
            d.check(&before, &g);
        }
        assert!(!four || g.steps() <= opts.max_steps);
        for s in Seat::ALL {
            if g.is_eliminated(s) {
                assert!(g.stations_of(s).is_empty());
            }
        }
    }
    if check_everything {
        check_views(&g);
    }
    if let Some(d) = &deltas {
        // the cheap path carried most steps (plain moves and combats)
        assert!(
            d.steps < 20 || d.fast * 2 > d.steps,
            "delta_since: {} of {} steps",
            d.fast,
            d.steps
        );
    }
    (g, record)
}

/// Every viewer's view as a protocol-2 client builds it: the first view, then each delta (read
/// back from its JSON) applied to it.
struct Deltas {
    clients: Vec<(Viewer, View)>,
    /// steps checked, and those `Game::delta_since` answered without building views
    steps: usize,
    fast: usize,
}

impl Deltas {
    fn new(g: &Game) -> Deltas {
        let clients = viewers(g.variant()).into_iter().map(|v| (v, g.view(v))).collect();
        Deltas { clients, steps: 0, fast: 0 }
    }

    /// After an action: each viewer's delta, applied, gives exactly its new view; and no entry
    /// of a delta shows a rank the viewer may not see now (rule written independently above).
    /// The delta made without views (`Game::delta_since`), where it is made, is the same delta.
    fn check(&mut self, before: &Game, g: &Game) {
        self.steps += 1;
        let mut fast = false;
        for (viewer, held) in &mut self.clients {
            let new = g.view(*viewer);
            let delta = held.delta_to(&new);
            if let Some(cheap) = g.delta_since(before, held, *viewer) {
                assert_eq!(cheap, delta, "{viewer:?}: delta_since against delta_to");
                fast = true;
            }
            let json = serde_json::to_string(&delta).unwrap();
            let read: ViewDelta = serde_json::from_str(&json).unwrap();
            held.apply(&read);
            assert_eq!(held, &new, "{viewer:?}: view after the delta {json}");
            let wire: serde_json::Value = serde_json::from_str(&json).unwrap();
            for (st, code) in wire["pieces"].as_object().unwrap() {
                let st: Station = serde_json::from_value(serde_json::json!(st)).unwrap();
                let Some(truth) = g.piece_at(st) else {
                    assert!(code.is_null(), "{viewer:?}: {st} is empty, delta says {code}");
                    continue;
                };
                let code = code.as_str().unwrap();
                if !may_see(g, *viewer, truth) {
                    assert_eq!(code, format!("{}?", truth.owner.letter()), "{viewer:?}: {st}");
                }
            }
            if let Some(fallen) = wire.get("fallen") {
                assert!(g.is_over(), "{viewer:?}: fallen pieces before the end: {fallen}");
            }
        }
        self.fast += usize::from(fast);
    }
}

/// The record survives JSON and replays to the same game; the position round trip keeps pieces,
/// turn, eliminations and counters.
/// (A Hidden Front record shows only the options that apply to it: read back, the others take
/// their defaults, and the game replays the same.)
fn check_record_and_position(g: &Game, record: &GameRecord) -> Result<(), TestCaseError> {
    let json = serde_json::to_string(record).unwrap();
    let record2: GameRecord = serde_json::from_str(&json).unwrap();
    let shown = serde_json::to_value(record.options.shown(record.variant)).unwrap();
    let canonical = GameRecord {
        options: Options::from_json_for(record.variant, Some(shown)).unwrap(),
        ..record.clone()
    };
    prop_assert_eq!(&record2, &canonical);
    prop_assert_eq!(&record.replay().unwrap(), g);
    let mut replayed = record2.replay().unwrap().to_position();
    replayed.options = record.options;
    prop_assert_eq!(replayed, g.to_position());
    let p = g.to_position();
    prop_assert_eq!(Game::from_position(&p).unwrap().to_position(), p);
    Ok(())
}

/// The game is over; the record replays to it, its events ending with the game's end.
fn check_replay_events(g: &Game, record: &GameRecord) -> Result<(), TestCaseError> {
    prop_assert!(g.is_over());
    let (g2, events) = record.replay_with_events().unwrap();
    prop_assert_eq!(&g2, g);
    let last_is_over = matches!(events.last(), Some(Event::GameOver { .. }));
    prop_assert!(last_is_over);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn random_games_full_checks(seed in any::<u64>(), opts in options()) {
        let (g, record) = play(seed, opts, true);
        prop_assert!(g.is_over());
        prop_assert!(g.steps() <= opts.max_steps);
        check_record_and_position(&g, &record)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn random_games_end_and_replay(seed in any::<u64>(), opts in options()) {
        let (g, record) = play(seed, opts, false);
        check_replay_events(&g, &record)?;
    }

    #[test]
    fn random_deployments_validate(seed in any::<u64>(), bfr in any::<bool>()) {
        let o = Options { bombs_front_row: bfr, ..Options::default() };
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for s in Seat::ALL {
            let d = Deployment::random(s, &o, &mut rng);
            prop_assert_eq!(d.validate(&o), Ok(()));
            prop_assert_eq!(d.pieces.len(), 25);
        }
    }

    #[test]
    fn swaps_keep_validity(seed in any::<u64>(), a in 0usize..30, b in 0usize..30) {
        let o = Options::default();
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut d = Deployment::random(Seat::W, &o, &mut rng);
        let before = d.clone();
        let (sa, sb) = (Station::from_index(90 + a).unwrap(), Station::from_index(90 + b).unwrap());
        match d.swap(sa, sb, &o) {
            Ok(()) => prop_assert_eq!(d.validate(&o), Ok(())),
            Err(_) => prop_assert_eq!(d, before),
        }
    }
}

fn hf_options() -> impl Strategy<Value = Options> {
    (0..3u8, 0..3u8, any::<bool>()).prop_map(|(im, fc, invincible)| Options {
        // info_mode does not apply to Hidden Front: views must stay dark whatever it says
        info_mode: [InfoMode::FourDark, InfoMode::DoubleOpen, InfoMode::AllOpen][im as usize],
        flag_capture: [FlagCapture::Any, FlagCapture::NotCommander, FlagCapture::EngineerOnly]
            [fc as usize],
        mines: if invincible { MineRule::Invincible } else { MineRule::Mutual },
        ..Options::for_variant(Variant::HiddenFront)
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn hidden_front_full_checks(seed in any::<u64>(), opts in hf_options()) {
        let (g, record) = play_variant(Variant::HiddenFront, seed, opts, true);
        prop_assert!(g.is_over());
        let seat_won_or_draw = matches!(g.status(), Status::SeatWon { .. } | Status::Draw { .. });
        prop_assert!(seat_won_or_draw);
        check_record_and_position(&g, &record)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn hidden_front_games_end_and_replay(seed in any::<u64>(), opts in hf_options()) {
        let (g, record) = play_variant(Variant::HiddenFront, seed, opts, false);
        check_replay_events(&g, &record)?;
    }

    #[test]
    fn hidden_front_deployments_and_swaps(seed in any::<u64>(), a in 0usize..30, b in 0usize..30) {
        let o = Options::for_variant(Variant::HiddenFront);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for s in [Seat::S, Seat::N] {
            let mut d = Deployment::random_for(Variant::HiddenFront, s, &o, &mut rng);
            prop_assert_eq!(d.validate(&o), Ok(()));
            let region: Vec<Station> = Variant::HiddenFront.board().region(s).collect();
            let before = d.clone();
            match d.swap(region[a], region[b], &o) {
                Ok(()) => prop_assert_eq!(d.validate(&o), Ok(())),
                Err(_) => prop_assert_eq!(d, before),
            }
        }
    }
}
