#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_rules::*;

#[test]
fn random_games_end() {
    let opts = Options::default();
    for seed in 0..50u64 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let deps = Seat::ALL.map(|s| Deployment::random(s, &opts, &mut rng));
        for d in &deps {
            d.validate(&opts).unwrap();
        }
        let mut g = Game::new(opts, &deps).unwrap();
        while !g.is_over() {
            let moves = g.legal_moves();
            assert!(!moves.is_empty());
            let m = &moves[rng.random_range(0..moves.len())];
            g.apply(&Action::Move { from: m.from, to: m.to }).unwrap();
        }
        assert!(g.steps() <= opts.max_steps);
    }
}
