//! The engine protocol (docs/engine.md): the doc's examples parse as the typed messages, a `go`
//! never carries a rank its seats may not see, and the engine loop answers a scripted session
//! and survives bad lines.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
mod common;
use common::*;
use proptest::prelude::*;
use siguo_bots::engine::{serve, Engine, EngineConfig};
use siguo_bots::engine_protocol::{to_line, Answer, ErrorCode, Go, LiveEvent, Request, WireEvent};
use siguo_bots::Level;
use siguo_rules::{
    Action, Deployment, Game, InfoMode, MineRule, Options, Piece, Seat, SeatSet, Station, Variant,
    Viewer,
};
use std::time::Duration;

/// Every line of the doc's ```json request / ```json answer blocks.
fn doc_examples(kind: &str) -> Vec<String> {
    let doc = include_str!("../../../docs/engine.md");
    let mut out = Vec::new();
    let mut inside = false;
    for line in doc.lines() {
        if line.trim() == format!("```json {kind}") {
            inside = true;
        } else if line.trim() == "```" {
            inside = false;
        } else if inside && !line.trim().is_empty() {
            out.push(line.to_string());
        }
    }
    out
}

#[test]
fn doc_examples_parse_as_the_typed_messages() {
    let requests = doc_examples("request");
    let answers = doc_examples("answer");
    assert!(requests.len() >= 10 && answers.len() >= 8, "the doc's examples were found");
    for r in &requests {
        Request::parse(r).unwrap_or_else(|e| panic!("{r}: {e:?}"));
    }
    for a in &answers {
        serde_json::from_str::<Answer>(a).unwrap_or_else(|e| panic!("{a}: {e}"));
    }
    // Every error code is documented in the table.
    let doc = include_str!("../../../docs/engine.md");
    for code in <ErrorCode as strum::VariantNames>::VARIANTS {
        assert!(doc.contains(&format!("| `{code}` |")), "{code} is not documented");
    }
}

/// Every rank written in a serialized `go` (pieces like `"S9"`; hidden ones are `"E?"`).
fn ranks_in(json: &serde_json::Value) -> Vec<(Station, Piece)> {
    json["view"]["pieces"]
        .as_object()
        .expect("a go has view.pieces")
        .iter()
        .filter_map(|(st, p)| {
            let st = Station::parse(st).expect("a station");
            Piece::parse(p.as_str().expect("a piece string")).map(|p| (st, p))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    /// A `go` never contains a rank its seats may not see: every rank in it is the true rank of
    /// the piece on that station, and `Game::may_see` allows it.
    #[test]
    fn go_never_carries_a_hidden_rank(
        seed in 0u64..10_000,
        plies in 0usize..160,
        mode in 0usize..3,
        dual in any::<bool>(),
    ) {
        let info_mode = [InfoMode::FourDark, InfoMode::DoubleOpen, InfoMode::AllOpen][mode];
        let options = Options { info_mode, ..Options::default() };
        let mut game = Game::new(options, &random_deployments(&options, seed)).unwrap();
        let mut r = rng(seed + 1);
        let mut checked_hidden = 0;
        for _ in 0..=plies {
            let Some(turn) = game.turn() else { break };
            let seats = if dual { SeatSet::one(turn).with(turn.partner()) } else { SeatSet::one(turn) };
            let go = Go::for_seats(&game, seats, 100, None);
            let json: serde_json::Value =
                serde_json::from_str(&to_line(&Request::Go(go))).unwrap();
            let viewer = Viewer::Seats(seats);
            for (st, seen) in ranks_in(&json) {
                let truth = game.piece_at(st).expect("a piece in the view is on the board");
                prop_assert_eq!(seen, truth);
                prop_assert!(game.may_see(viewer, truth), "{} shows {:?}", st, truth);
            }
            checked_hidden += json["view"]["pieces"].as_object().unwrap().values()
                .filter(|p| p.as_str().unwrap().ends_with('?')).count();
            let moves = game.legal_moves();
            use rand::Rng;
            let m = &moves[r.random_range(0..moves.len())];
            game.apply(&Action::Move { from: m.from, to: m.to }).unwrap();
        }
        if info_mode != InfoMode::AllOpen && !game.is_over() {
            prop_assert!(checked_hidden > 0, "some rank was hidden");
        }
    }
}

fn config(level: Level) -> EngineConfig {
    EngineConfig { level, budget: Duration::from_millis(20), seed: 3 }
}

fn answers(engine: &mut Engine, line: &str) -> Vec<Answer> {
    engine.handle(line).0
}

#[test]
fn scripted_session_for_each_bot() {
    for level in [Level::Random, Level::Greedy, Level::Standard, Level::StandardV1] {
        let mut e = Engine::new(config(level));
        let ready = answers(&mut e, r#"{"type":"hello","protocol":2}"#);
        assert!(matches!(&ready[..], [Answer::Ready { protocol: 2, .. }]), "{ready:?}");
        let options = Options::default();
        let dep = answers(
            &mut e,
            r#"{"type":"new_game","variant":"four_player","seats":["E"],"deploy":true,"seed":5}"#,
        );
        let [Answer::Deployment { deployments }] = &dep[..] else { panic!("{dep:?}") };
        assert_eq!(deployments.len(), 1);
        assert_eq!(deployments[0].seat, Seat::E);
        deployments[0].validate(&options).expect("the engine's deployment is legal");
        let mut deps = random_deployments(&options, 9);
        deps[1] = deployments[0].clone();
        let mut game = Game::new(options, &deps).unwrap();
        let mut events: Vec<WireEvent> = vec![LiveEvent::BattleStarted.into()];
        events.extend(game.initial_events().into_iter().map(WireEvent::from));
        // North moves first; then it is East's (the engine's) turn.
        let m = game.legal_moves()[0].clone();
        events.extend(
            game.apply(&Action::Move { from: m.from, to: m.to })
                .unwrap()
                .into_iter()
                .map(WireEvent::from),
        );
        for ev in events {
            let line = to_line(&Request::Event { event: ev });
            assert!(answers(&mut e, &line).is_empty(), "an event gets no answer");
        }
        assert_eq!(game.turn(), Some(Seat::E));
        let go = Go::for_seats(&game, SeatSet::one(Seat::E), 20, Some(30_000));
        let out = answers(&mut e, &to_line(&Request::Go(go)));
        let Some(Answer::Move { from, to }) = out.last() else { panic!("{out:?}") };
        assert!(out[..out.len() - 1].iter().all(|a| matches!(a, Answer::Info(_))));
        game.apply(&Action::Move { from: *from, to: *to }).expect("the engine's move is legal");
        assert_eq!(e.handle(r#"{"type":"quit"}"#), (vec![], true));
    }
}

#[test]
fn bad_lines_get_errors_and_the_engine_survives() {
    let cases: &[(&[u8], ErrorCode)] = &[
        (b"not json", ErrorCode::InvalidJson),
        (b"[1,2]", ErrorCode::InvalidJson),
        (b"\xff\xfe{}", ErrorCode::InvalidJson),
        (br#"{"protocol":2}"#, ErrorCode::UnknownType),
        (br#"{"type":"launch"}"#, ErrorCode::UnknownType),
        (br#"{"type":"hello"}"#, ErrorCode::BadMessage),
        (br#"{"type":"hello","protocol":2,"extra":true}"#, ErrorCode::BadMessage),
        (br#"{"type":"hello","protocol":99}"#, ErrorCode::UnsupportedProtocol),
        (br#"{"type":"new_game","variant":"chess","seats":["N"]}"#, ErrorCode::UnsupportedVariant),
        (br#"{"type":"new_game","variant":7,"seats":["N"]}"#, ErrorCode::UnsupportedVariant),
        (br#"{"type":"new_game","variant":"four_player","seats":["N","E"]}"#, ErrorCode::BadSeats),
        (br#"{"type":"new_game","variant":"hidden_front","seats":["N","S"]}"#, ErrorCode::BadSeats),
        (br#"{"type":"new_game","variant":"hidden_front","seats":["E"]}"#, ErrorCode::BadSeats),
        (
            br#"{"type":"new_game","variant":"hidden_front","seats":["S"],"options":{"mines":1}}"#,
            ErrorCode::BadMessage,
        ),
        (br#"{"type":"event","event":{"type":"battle_started"}}"#, ErrorCode::NoGame),
    ];
    let mut input = Vec::new();
    for (line, _) in cases {
        input.extend_from_slice(line);
        input.push(b'\n');
    }
    // After all that, a normal session still works.
    input.extend_from_slice(b"{\"type\":\"hello\",\"protocol\":2}\n{\"type\":\"quit\"}\n");
    input.extend_from_slice(b"{\"type\":\"hello\",\"protocol\":2}\n"); // after quit: not read
    let mut out = Vec::new();
    serve(config(Level::Random), &input[..], &mut out).unwrap();
    let lines: Vec<Answer> = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect();
    assert_eq!(lines.len(), cases.len() + 1, "{lines:?}");
    for ((line, code), answer) in cases.iter().zip(&lines) {
        match answer {
            Answer::Error { code: c, .. } => {
                assert_eq!(c, code, "{}", String::from_utf8_lossy(line))
            }
            other => panic!("{}: {other:?}", String::from_utf8_lossy(line)),
        }
    }
    assert!(matches!(lines.last(), Some(Answer::Ready { .. })));
}

#[test]
fn go_errors() {
    let mut e = Engine::new(config(Level::Greedy));
    let options = Options::default();
    let game = Game::new(options, &random_deployments(&options, 1)).unwrap();
    let go = to_line(&Request::Go(Go::for_seats(&game, SeatSet::one(Seat::N), 10, None)));
    assert!(matches!(&answers(&mut e, &go)[..], [Answer::Error { code: ErrorCode::NoGame, .. }]));
    answers(&mut e, r#"{"type":"new_game","variant":"four_player","seats":["S"]}"#);
    assert!(matches!(
        &answers(&mut e, &go)[..],
        [Answer::Error { code: ErrorCode::NotYourSeat, .. }]
    ));
    let mut empty = Go::for_seats(&game, SeatSet::one(Seat::N), 10, None);
    empty.legal_moves.clear();
    answers(&mut e, r#"{"type":"new_game","variant":"four_player","seats":["N","S"]}"#);
    assert!(matches!(
        &answers(&mut e, &to_line(&Request::Go(empty)))[..],
        [Answer::Error { code: ErrorCode::NoLegalMoves, .. }]
    ));
    // Dual control: the engine plays North with the view of both seats.
    let out = answers(&mut e, &go);
    assert!(matches!(out.last(), Some(Answer::Move { .. })), "{out:?}");
}

/// One Hidden Front session with `level` playing `seat`: the engine deploys (a legal deployment
/// for hidden-front.md §3, options defaulting to the game's: `mines = mutual`), hears the events
/// and answers every `go` of its side with a legal move until the game ends.
fn hidden_front_session(level: Level, seat: Seat, seed: u64) {
    let mut e = Engine::new(config(level));
    answers(&mut e, r#"{"type":"hello","protocol":2}"#);
    let new_game = format!(
        r#"{{"type":"new_game","variant":"hidden_front","seats":["{}"],"deploy":true,"seed":{seed}}}"#,
        seat.letter()
    );
    let dep = answers(&mut e, &new_game);
    let [Answer::Deployment { deployments }] = &dep[..] else { panic!("{dep:?}") };
    let options = Options::for_variant(Variant::HiddenFront);
    assert_eq!(options.mines, MineRule::Mutual);
    let [mine] = &deployments[..] else { panic!("{deployments:?}") };
    assert_eq!(mine.seat, seat);
    mine.validate_for(Variant::HiddenFront, &options).expect("a legal Hidden Front deployment");
    let other =
        Deployment::random_for(Variant::HiddenFront, seat.partner(), &options, &mut rng(seed));
    let deps = if seat == Seat::S { [mine.clone(), other] } else { [other, mine.clone()] };
    let mut game = Game::start(Variant::HiddenFront, options, &deps).unwrap();
    let mut events: Vec<WireEvent> = vec![LiveEvent::BattleStarted.into()];
    events.extend(game.initial_events().into_iter().map(WireEvent::from));
    let mut r = rng(seed + 1);
    let mut engine_moves = 0;
    while let Some(turn) = game.turn() {
        for ev in events.drain(..) {
            assert!(answers(&mut e, &to_line(&Request::Event { event: ev })).is_empty());
        }
        let moves = game.legal_moves();
        let (from, to) = if turn == seat {
            let go = Go::for_seats(&game, SeatSet::one(seat), 5, Some(30_000));
            let out = answers(&mut e, &to_line(&Request::Go(go)));
            let Some(Answer::Move { from, to }) = out.last() else { panic!("{out:?}") };
            engine_moves += 1;
            (*from, *to)
        } else {
            use rand::Rng;
            let m = &moves[r.random_range(0..moves.len())];
            (m.from, m.to)
        };
        assert!(moves.iter().any(|m| m.from == from && m.to == to), "{level:?}: {from}-{to}");
        let ev = game.apply(&Action::Move { from, to }).unwrap();
        events.extend(ev.into_iter().map(WireEvent::from));
        if engine_moves >= 40 {
            break;
        }
    }
    assert!(engine_moves > 0);
    assert_eq!(e.handle(r#"{"type":"quit"}"#), (vec![], true));
}

#[test]
fn scripted_hidden_front_session_for_each_bot() {
    for (i, level) in
        [Level::Random, Level::Greedy, Level::Standard, Level::StandardV1].into_iter().enumerate()
    {
        hidden_front_session(level, Seat::S, 10 + i as u64);
        hidden_front_session(level, Seat::N, 20 + i as u64);
    }
}

#[test]
fn a_go_of_the_other_game_is_refused() {
    let mut e = Engine::new(config(Level::Greedy));
    answers(&mut e, r#"{"type":"new_game","variant":"hidden_front","seats":["N"]}"#);
    let options = Options::default();
    // A four-player `go` for North names a seat of ours, but not of our game.
    let game = Game::new(options, &random_deployments(&options, 4)).unwrap();
    let go = to_line(&Request::Go(Go::for_seats(&game, SeatSet::one(Seat::N), 10, None)));
    assert!(matches!(
        &answers(&mut e, &go)[..],
        [Answer::Error { code: ErrorCode::BadMessage, .. }]
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
    /// Hidden Front: a `go` carries only the ranks its seat may see.
    #[test]
    fn hidden_front_go_never_carries_a_hidden_rank(seed in 0u64..10_000, plies in 0usize..200) {
        let options = Options::for_variant(Variant::HiddenFront);
        let mut r = rng(seed);
        let deps: Vec<Deployment> = [Seat::S, Seat::N]
            .iter()
            .map(|&s| Deployment::random_for(Variant::HiddenFront, s, &options, &mut r))
            .collect();
        let mut game = Game::start(Variant::HiddenFront, options, &deps).unwrap();
        random_prefix(&mut game, plies, seed + 1);
        let Some(turn) = game.turn() else { return Ok(()) };
        let go = Go::for_seats(&game, SeatSet::one(turn), 100, None);
        let json = serde_json::to_value(&go).unwrap();
        prop_assert_eq!(json["view"]["variant"].as_str(), Some("hidden_front"));
        for (st, p) in ranks_in(&json) {
            prop_assert_eq!(game.piece_at(st), Some(p));
            prop_assert!(p.owner == turn || (p.rank == siguo_rules::Rank::Flag && game.flag_revealed(p.owner)),
                "{} shows {:?}", st, p);
        }
    }
}

/// Issue 31: a driver that deploys sends the engine its own deployment in `new_game`; the engine
/// answers an empty list, and refuses deployments of other seats, illegal ones, or any together
/// with `deploy: true` — each refusal leaving it ready for the next `new_game`.
#[test]
fn new_game_carries_the_drivers_deployment_of_the_engines_seats() {
    let options = Options::default();
    let deps = random_deployments(&options, 3);
    let new_game = |seats: &[Seat], deploy: bool, given: Vec<Deployment>| {
        to_line(&Request::NewGame {
            variant: Variant::FourPlayer,
            options: options.shown(Variant::FourPlayer),
            seats: seats.to_vec(),
            deploy,
            deployments: given,
            seed: Some(siguo_bots::engine_protocol::MAX_SEED),
        })
    };
    let mut e = Engine::new(config(Level::Standard));
    answers(&mut e, r#"{"type":"hello","protocol":2}"#);
    let mut illegal = deps[2].clone();
    let flag = *illegal.pieces.iter().find(|(_, r)| **r == siguo_rules::Rank::Flag).unwrap().0;
    illegal.pieces.remove(&flag);
    for bad in [
        new_game(&[Seat::S], false, vec![deps[0].clone()]),
        new_game(&[Seat::S], false, vec![deps[2].clone(), deps[2].clone()]),
        new_game(&[Seat::N, Seat::S], false, vec![deps[0].clone()]),
        new_game(&[Seat::S], true, vec![deps[2].clone()]),
        new_game(&[Seat::S], false, vec![illegal]),
    ] {
        let out = answers(&mut e, &bad);
        assert!(
            matches!(&out[..], [Answer::Error { code: ErrorCode::BadMessage, .. }]),
            "{bad}: {out:?}"
        );
    }
    let ok = new_game(&[Seat::N, Seat::S], false, vec![deps[2].clone(), deps[0].clone()]);
    assert!(ok.contains("\"deployments\":[{\"seat\":\"S\""), "{ok}");
    let out = answers(&mut e, &ok);
    assert_eq!(out, vec![Answer::Deployment { deployments: vec![] }]);
    // It plays the game it was given.
    let game = Game::new(options, &deps).unwrap();
    let go =
        to_line(&Request::Go(Go::for_seats(&game, SeatSet::one(Seat::N).with(Seat::S), 10, None)));
    assert!(matches!(answers(&mut e, &go).last(), Some(Answer::Move { .. })));
}
