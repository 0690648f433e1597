//! Helpers shared by the bot tests: real games on the real engine.
#![allow(dead_code)]
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_bots::Bot;
use siguo_rules::{Action, Deployment, Event, Game, Options, Seat, SeatSet, Viewer};

pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

pub fn random_deployments(options: &Options, seed: u64) -> [Deployment; 4] {
    let mut r = rng(seed);
    Seat::ALL.map(|s| Deployment::random(s, options, &mut r))
}

/// Play `n` uniformly random moves (fewer if the game ends); returns the actions and every event.
pub fn random_prefix(game: &mut Game, n: usize, seed: u64) -> (Vec<Action>, Vec<Event>) {
    let mut r = rng(seed);
    let mut actions = Vec::new();
    let mut events = game.initial_events();
    for _ in 0..n {
        if game.is_over() {
            break;
        }
        let moves = game.legal_moves();
        let m = &moves[r.random_range(0..moves.len())];
        let a = Action::Move { from: m.from, to: m.to };
        events.extend(game.apply(&a).expect("a generated move applies"));
        actions.push(a);
    }
    (actions, events)
}

/// Who drives each seat: a bot index and the seats that bot sees.
pub struct Driver {
    pub bot: usize,
    pub sees: SeatSet,
}

/// Play a whole game with the given bots; every choice must be one of the legal moves.
/// Returns the finished game and the number of moves the bots chose.
pub fn play_out(mut game: Game, bots: &mut [Box<dyn Bot>], drivers: &[Driver; 4]) -> (Game, usize) {
    for e in game.initial_events() {
        bots.iter_mut().for_each(|b| b.observe(&e));
    }
    let mut chosen = 0;
    while let Some(seat) = game.turn() {
        let moves = game.legal_moves();
        assert!(!moves.is_empty(), "the engine gave the turn to a seat without moves");
        let d = &drivers[seat.index()];
        let view = game.view(Viewer::Seats(d.sees));
        let m = bots[d.bot].choose(&view, &moves);
        assert!(moves.contains(&m), "bot chose a move that is not legal: {}", m.notation());
        let events =
            game.apply(&Action::Move { from: m.from, to: m.to }).expect("a legal move applies");
        chosen += 1;
        for e in &events {
            bots.iter_mut().for_each(|b| b.observe(e));
        }
    }
    (game, chosen)
}
