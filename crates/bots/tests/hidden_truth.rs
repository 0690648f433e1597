//! A bot's choice never depends on hidden truth: two games that differ only in ranks the bot may
//! not see, and that produced the same public events and the same view, get the same move from
//! bots with the same seed (search bounded by nodes, not by the clock, so it is reproducible).
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
mod common;
use common::*;
use rand::Rng;
use siguo_bots::{make_bot_with, Level};
use siguo_rules::{Action, Game, Options, Seat, SeatSet, Station, Viewer};
use std::time::Duration;

/// Replay `actions` on new deployments; `None` if some action is refused.
fn replay(
    options: Options,
    deps: &[siguo_rules::Deployment; 4],
    actions: &[Action],
) -> Option<(Game, Vec<siguo_rules::Event>)> {
    let mut g = Game::new(options, deps).ok()?;
    let mut events = g.initial_events();
    for a in actions {
        events.extend(g.apply(a).ok()?);
    }
    Some((g, events))
}

#[test]
fn permuting_hidden_identities_does_not_change_the_move() {
    let options = Options::default();
    let mut checked = 0;
    for seed in 0..24u64 {
        let deps = random_deployments(&options, seed);
        let mut game = Game::new(options, &deps).unwrap();
        let plies = (seed as usize * 7) % 60;
        let (actions, events) = random_prefix(&mut game, plies, seed + 1000);
        let Some(me) = game.turn() else { continue };
        let viewer = Viewer::Seats(SeatSet::one(me));
        let view = game.view(viewer);
        // Swap the ranks of pieces of seats other than `me` (allies included: four-dark hides
        // them too) as long as the deployments stay legal and the public record is unchanged.
        let mut r = rng(seed + 2000);
        let mut deps2 = deps.clone();
        let mut swaps = 0;
        for _ in 0..400 {
            let other = Seat::ALL[r.random_range(0..4)];
            if other == me {
                continue;
            }
            let st: Vec<Station> = deps2[other.index()].pieces.keys().copied().collect();
            let (a, b) = (st[r.random_range(0..st.len())], st[r.random_range(0..st.len())]);
            let mut trial = deps2.clone();
            if trial[other.index()].pieces[&a] == trial[other.index()].pieces[&b]
                || trial[other.index()].swap(a, b, &options).is_err()
            {
                continue;
            }
            let Some((g2, ev2)) = replay(options, &trial, &actions) else { continue };
            if ev2 == events && g2.view(viewer) == view && g2.legal_moves() == game.legal_moves() {
                deps2 = trial;
                swaps += 1;
            }
        }
        if swaps == 0 {
            continue;
        }
        let (game2, events2) = replay(options, &deps2, &actions).unwrap();
        assert_ne!(game.to_position(), game2.to_position(), "the hidden truth differs");
        let moves = game.legal_moves();
        for level in [Level::Greedy, Level::Standard] {
            let mut picks = Vec::new();
            for (g, ev) in [(&game, &events), (&game2, &events2)] {
                let mut bot = make_bot_with(level, 77 + seed, Duration::from_secs(60), Some(1_500));
                for e in ev {
                    bot.observe(e);
                }
                picks.push(bot.choose(&g.view(viewer), &moves));
            }
            assert_eq!(
                picks[0], picks[1],
                "seed {seed}, level {level:?}: the move depends on hidden ranks"
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} positions could be permuted");
}
