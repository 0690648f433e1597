//! The bots play Hidden Front (hidden-front.md): their deployments keep §3's rules, their moves
//! are legal over whole games from the redacted view, a bot that joins late rebuilds its
//! knowledge on the 5 × 12 board, and the standard bot takes a sure flag capture and does not
//! accept a draw it is winning.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
mod common;
use common::rng;
use proptest::prelude::*;
use siguo_bots::{make_bot, make_bot_with, Bot, Level};
use siguo_rules::{
    Action, Deployment, Game, MineRule, Options, Rank, Seat, SeatSet, Station, Variant, Viewer,
};
use std::time::Duration;

const HF: Variant = Variant::HiddenFront;
const LEVELS: [Level; 4] = [Level::Random, Level::Greedy, Level::Standard, Level::StandardV1];

fn hf_options() -> Options {
    Options::for_variant(HF)
}

fn bot(level: Level, seed: u64) -> Box<dyn Bot> {
    // Node-bounded so the (unoptimized) test build stays quick and the games reproducible.
    make_bot_with(level, seed, Duration::from_millis(500), Some(300))
}

fn check_deployment(d: &Deployment, seat: Seat, options: &Options) {
    assert_eq!(d.seat, seat);
    d.validate_for(HF, options).unwrap_or_else(|e| panic!("illegal: {e} ({})", e.code()));
    // §3, spelled out: 25 pieces in the seat's half, flag in a headquarters, mines in the last
    // two rows and never in a headquarters, no bomb in the front row.
    assert_eq!(d.pieces.len(), 25);
    for (&st, &r) in &d.pieces {
        assert_eq!(st.variant(), HF);
        assert_eq!(st.region(), Some(seat));
        let (_, row) = st.hf_grid().unwrap();
        let back = if seat == Seat::S { [11, 12] } else { [1, 2] };
        let front = if seat == Seat::S { 7 } else { 6 };
        match r {
            Rank::Flag => assert!(st.is_headquarters(), "flag on {st}"),
            Rank::Mine => assert!(back.contains(&row) && !st.is_headquarters(), "mine on {st}"),
            Rank::Bomb => assert_ne!(row, front, "bomb on {st}"),
            _ => {}
        }
    }
}

#[test]
fn every_bot_deploys_legally_for_both_seats() {
    for options in [hf_options(), Options { mines: MineRule::Invincible, ..hf_options() }] {
        for level in LEVELS {
            for seed in 0..150 {
                let mut b = make_bot(level, seed, Duration::from_millis(10));
                for seat in [Seat::S, Seat::N] {
                    check_deployment(&b.deploy_for(HF, seat, &options), seat, &options);
                }
            }
        }
    }
}

#[test]
fn sensible_deployments_vary_and_guard_the_flag() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..30 {
        let d = make_bot(Level::Standard, seed, Duration::from_millis(10)).deploy_for(
            HF,
            Seat::N,
            &hf_options(),
        );
        let flag = d.pieces.iter().find(|(_, r)| **r == Rank::Flag).map(|(s, _)| *s).unwrap();
        let mines_next =
            flag.neighbours().iter().filter(|s| d.pieces.get(s) == Some(&Rank::Mine)).count();
        assert!(mines_next >= 2, "seed {seed}: the flag on {flag} has {mines_next} mines by it");
        seen.insert(format!("{:?}", d.pieces));
    }
    assert!(seen.len() >= 25, "deployments should vary");
}

/// Play a whole Hidden Front game: `bots[0]` plays South, `bots[1]` North, each from its own
/// view; every choice must be legal. Returns the finished game.
fn play_hf(bots: &mut [Box<dyn Bot>; 2], options: Options) -> Game {
    let deps: Vec<Deployment> = [Seat::S, Seat::N]
        .iter()
        .zip(bots.iter_mut())
        .map(|(&s, b)| b.deploy_for(HF, s, &options))
        .collect();
    let mut game = Game::start(HF, options, &deps).expect("the bots' deployments start a game");
    for e in game.initial_events() {
        bots.iter_mut().for_each(|b| b.observe(&e));
    }
    while let Some(seat) = game.turn() {
        let moves = game.legal_moves();
        assert!(!moves.is_empty(), "the engine gave the turn to a side without moves");
        let b = &mut bots[if seat == Seat::S { 0 } else { 1 }];
        let m = b.choose(&game.view(Viewer::Seats(SeatSet::one(seat))), &moves);
        assert!(moves.contains(&m), "illegal move {} at step {}", m.notation(), game.steps());
        let events = game.apply(&Action::Move { from: m.from, to: m.to }).expect("legal");
        for e in &events {
            bots.iter_mut().for_each(|b| b.observe(e));
        }
        assert!(game.steps() < 20_000, "the game does not end");
    }
    game
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
    /// Any two bots, any seed, either mine rule: whole games of legal moves that end.
    #[test]
    fn every_bot_plays_legal_moves_to_the_end(
        seed in 0u64..1_000_000,
        a in 0usize..4,
        b in 0usize..4,
        invincible in any::<bool>(),
    ) {
        let mines = if invincible { MineRule::Invincible } else { MineRule::Mutual };
        let options = Options { mines, ..hf_options() };
        let mut bots = [bot(LEVELS[a], seed), bot(LEVELS[b], seed + 1)];
        let game = play_hf(&mut bots, options);
        prop_assert!(game.is_over());
    }
}

#[test]
fn cheap_bots_play_many_legal_games() {
    for seed in 0..60 {
        let mut bots = [bot(Level::Random, seed), bot(Level::Greedy, seed + 1000)];
        if seed % 2 == 1 {
            bots.swap(0, 1);
        }
        assert!(play_hf(&mut bots, hf_options()).is_over());
    }
}

#[test]
fn a_bot_joining_late_plays_legal_moves() {
    // The bots see no event before their first move: their knowledge rebuilds from the view.
    let options = hf_options();
    for seed in 0..6 {
        let mut r = rng(seed);
        let deps: Vec<Deployment> = [Seat::S, Seat::N]
            .iter()
            .map(|&s| Deployment::random_for(HF, s, &options, &mut r))
            .collect();
        let mut game = Game::start(HF, options, &deps).unwrap();
        common::random_prefix(&mut game, 20 + seed as usize * 5, seed);
        let mut bots = [bot(Level::Standard, seed), bot(Level::Standard, seed + 7)];
        let mut plies = 0;
        while let Some(seat) = game.turn() {
            let moves = game.legal_moves();
            let b = &mut bots[if seat == Seat::S { 0 } else { 1 }];
            let m = b.choose(&game.view(Viewer::Seats(SeatSet::one(seat))), &moves);
            assert!(moves.contains(&m));
            for e in game.apply(&Action::Move { from: m.from, to: m.to }).unwrap() {
                bots.iter_mut().for_each(|b| b.observe(&e));
            }
            plies += 1;
            if plies > 60 {
                break;
            }
        }
    }
}

fn st(name: &str) -> Station {
    Station::parse(name).unwrap()
}

/// A small Hidden Front position in the referee's JSON (hidden-front.md §8).
fn position(turn: &str, pieces: serde_json::Value, steps: u32, quiet_steps: u32) -> Game {
    let json = serde_json::json!({"variant": "hidden_front", "turn": turn, "pieces": pieces,
                                  "steps": steps, "quiet_steps": quiet_steps});
    let p: siguo_rules::Position = serde_json::from_value(json).unwrap();
    Game::from_position(&p).unwrap()
}

fn view_of(game: &Game, seat: Seat) -> siguo_rules::View {
    game.view(Viewer::Seats(SeatSet::one(seat)))
}

#[test]
fn the_standard_bot_takes_a_revealed_flag() {
    // A fresh board where North's only headquarters piece is on D1: it must be the flag (the
    // flag never leaves a headquarters), and South's engineer on D2 takes it.
    let pieces = serde_json::json!({"D1": "NF", "A1": "N5", "A3": "N8", "D2": "S1", "B12": "SF",
                                    "C11": "S9", "E9": "S3"});
    let game = position("S", pieces, 0, 0);
    let view = view_of(&game, Seat::S);
    assert_eq!(view.pieces[&st("D1")].rank(), None, "the flag is not public");
    let mut b = bot(Level::Standard, 1);
    let m = b.choose(&view, &game.legal_moves());
    assert_eq!((m.from, m.to), (st("D2"), st("D1")));
}

#[test]
fn the_standard_bot_refuses_a_draw_it_is_winning_and_accepts_one_it_is_losing() {
    // South has its commander and general against a lone North lieutenant (and flag).
    let pieces = serde_json::json!({"D1": "NF", "B1": "N1", "A3": "N4", "D12": "SF", "C8": "S9",
                                    "E7": "S8", "A11": "S1"});
    let game = position("N", pieces, 40, 12);
    assert!(!bot(Level::Standard, 2).accept_draw(&view_of(&game, Seat::S)));
    assert!(bot(Level::Standard, 3).accept_draw(&view_of(&game, Seat::N)));
}

#[test]
fn the_standard_bot_fights_rather_than_drift_into_the_100_step_draw() {
    // South is far ahead; 99 steps without combat: any quiet move draws (hidden-front.md §5),
    // an attack keeps the game going.
    let pieces = serde_json::json!({"D1": "NF", "A3": "N4", "E2": "N2", "A4": "S9", "E9": "S8",
                                    "A11": "S1", "D12": "SF"});
    let game = position("S", pieces, 150, 99);
    let view = view_of(&game, Seat::S);
    for seed in 0..4 {
        let m = bot(Level::Standard, seed).choose(&view, &game.legal_moves());
        assert!(
            game.piece_at(m.to).is_some_and(|p| p.owner == Seat::N),
            "seed {seed}: {} is a quiet move into a draw",
            m.notation()
        );
    }
}
