//! Bots finish games of every kind: each info mode, each rule option, dual control; their
//! deployments are legal.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
mod common;
use common::*;
use siguo_bots::{make_bot, make_bot_with, Bot, Level};
use siguo_rules::{FlagCapture, Game, InfoMode, MineRule, Options, Seat, SeatSet, Team};
use std::time::Duration;

fn variants() -> Vec<Options> {
    let base = Options { max_steps: 60, ..Options::default() };
    let mut v = Vec::new();
    for info_mode in [InfoMode::FourDark, InfoMode::DoubleOpen, InfoMode::AllOpen] {
        v.push(Options { info_mode, ..base });
    }
    v.push(Options { flag_capture: FlagCapture::EngineerOnly, ..base });
    v.push(Options { flag_capture: FlagCapture::NotCommander, ..base });
    v.push(Options { mines: MineRule::Mutual, ..base });
    v.push(Options { bombs_front_row: true, ..base });
    v
}

fn bot(level: Level, seed: u64) -> Box<dyn Bot> {
    // Node-bounded so the (unoptimized) test build stays quick.
    make_bot_with(level, seed, Duration::from_millis(500), Some(400))
}

#[test]
fn deployments_are_legal() {
    for options in variants() {
        for level in [Level::Random, Level::Greedy, Level::Standard] {
            for seed in 0..40 {
                let mut b = make_bot(level, seed, Duration::from_millis(10));
                for seat in Seat::ALL {
                    let d = b.deploy(seat, &options);
                    assert_eq!(d.seat, seat);
                    if let Err(e) = d.validate(&options) {
                        panic!(
                            "{level:?} seed {seed} {options:?}: illegal deployment: {e} ({})",
                            e.code()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn deployments_vary_and_guard_the_flag() {
    let options = Options::default();
    let mut seen = std::collections::BTreeSet::new();
    let mut guarded = 0;
    for seed in 0..30 {
        let d =
            make_bot(Level::Standard, seed, Duration::from_millis(10)).deploy(Seat::S, &options);
        let flag =
            d.pieces.iter().find(|(_, r)| **r == siguo_rules::Rank::Flag).map(|(s, _)| *s).unwrap();
        assert!(flag.is_headquarters());
        let mines_next = flag
            .neighbours()
            .iter()
            .filter(|s| d.pieces.get(s) == Some(&siguo_rules::Rank::Mine))
            .count();
        if mines_next >= 2 {
            guarded += 1;
        }
        seen.insert(format!("{:?}", d.pieces));
    }
    assert!(seen.len() >= 25, "deployments should vary");
    assert_eq!(guarded, 30, "the flag is guarded by at least two mines");
}

#[test]
fn every_level_finishes_every_kind_of_game() {
    let mut seed = 0;
    for options in variants() {
        for (a, b) in [
            (Level::Standard, Level::Greedy),
            (Level::Greedy, Level::Random),
            (Level::Standard, Level::Random),
        ] {
            seed += 1;
            let mut bots: Vec<Box<dyn Bot>> = Seat::ALL
                .iter()
                .map(|s| bot(if s.team() == Team::NS { a } else { b }, seed * 4 + s.index() as u64))
                .collect();
            let deps = Seat::ALL.map(|s| bots[s.index()].deploy(s, &options));
            let drivers = Seat::ALL.map(|s| Driver { bot: s.index(), sees: SeatSet::one(s) });
            let (game, chosen) = play_out(Game::new(options, &deps).unwrap(), &mut bots, &drivers);
            assert!(game.is_over(), "{options:?}: the game did not end");
            assert!(chosen > 0);
            assert!(game.steps() <= options.max_steps);
        }
    }
}

#[test]
fn dual_control_bots_finish_games() {
    // One bot drives both seats of a team and sees both; the other team too.
    let mut seed = 100;
    for options in variants() {
        seed += 1;
        let mut bots: Vec<Box<dyn Bot>> =
            vec![bot(Level::Standard, seed), bot(Level::Greedy, seed + 1)];
        let deps = Seat::ALL.map(|s| bots[s.index() % 2].deploy(s, &options));
        let drivers = Seat::ALL
            .map(|s| Driver { bot: s.index() % 2, sees: SeatSet::one(s).with(s.partner()) });
        let (game, chosen) = play_out(Game::new(options, &deps).unwrap(), &mut bots, &drivers);
        assert!(game.is_over(), "{options:?}: the game did not end");
        assert!(chosen > 0);
    }
}

#[test]
fn a_bot_joining_late_still_plays_legal_moves() {
    // A bot that missed the first events (a seat handed to a bot mid-game) rebuilds its
    // knowledge from the view.
    let options = Options { max_steps: 80, ..Options::default() };
    for seed in 0..4 {
        let mut game = Game::new(options, &random_deployments(&options, seed)).unwrap();
        random_prefix(&mut game, 30, seed);
        if game.is_over() {
            continue;
        }
        let mut bots: Vec<Box<dyn Bot>> =
            (0..4).map(|i| bot(Level::Standard, seed * 10 + i)).collect();
        let drivers = Seat::ALL.map(|s| Driver { bot: s.index(), sees: SeatSet::one(s) });
        let (game, _) = play_out(game, &mut bots, &drivers);
        assert!(game.is_over());
    }
}
