//! Engine throughput on this machine, in wall time and in CPU time of this process (so that the
//! figures mean something on a loaded machine): `cargo run --release -p siguo-rules --example throughput`.
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_rules::*;
use std::time::Instant;

/// CPU time of this process in ns (Linux `/proc/self/schedstat`), if available.
fn cpu_ns() -> Option<u64> {
    std::fs::read_to_string("/proc/self/schedstat").ok()?.split_whitespace().next()?.parse().ok()
}

fn measure(label: &str, n: u64, unit: &str, f: impl FnOnce()) {
    let (w0, c0) = (Instant::now(), cpu_ns());
    f();
    let wall = w0.elapsed().as_secs_f64();
    print!("{label}: {:.0} {unit}/s wall", n as f64 / wall);
    if let (Some(c0), Some(c1)) = (c0, cpu_ns()) {
        print!(", {:.0} {unit}/s CPU", n as f64 / ((c1 - c0) as f64 * 1e-9));
    }
    println!();
}

fn main() {
    let opts = Options::default();
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    // a mid-game position: 80 random moves in
    let deps = Seat::ALL.map(|s| Deployment::random(s, &opts, &mut rng));
    let mut g = Game::new(opts, &deps).expect("a random deployment is legal");
    let mut buf = Vec::new();
    for _ in 0..80 {
        g.legal_pairs(&mut buf);
        let (f, t) = buf[rng.random_range(0..buf.len())];
        g.play_fast(f, t);
    }
    let n = 2_000_000;
    let mut total = 0;
    measure("legal_pairs (mid-game)", n, "generations", || {
        for _ in 0..n {
            std::hint::black_box(&g).legal_pairs(&mut buf);
            total += buf.len();
        }
    });
    println!("  ({} moves in the position)", total as u64 / n);
    let games = 3000;
    let mut steps = 0u64;
    measure("random games (deploy + play to the end)", games, "games", || {
        for _ in 0..games {
            let deps = Seat::ALL.map(|s| Deployment::random(s, &opts, &mut rng));
            let mut g = Game::new(opts, &deps).expect("a random deployment is legal");
            while !g.is_over() {
                g.legal_pairs(&mut buf);
                let (f, t) = buf[rng.random_range(0..buf.len())];
                g.play_fast(f, t);
            }
            steps += g.steps() as u64;
        }
    });
    println!("  ({} steps per game on average)", steps / games);
}
