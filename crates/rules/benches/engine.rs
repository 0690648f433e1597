//! Criterion benchmarks: move generation on a mid-game position, and whole random games.
//! Run: `cargo bench -p siguo-rules`.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_rules::{Deployment, Game, Options, Seat, Station, Variant};
use std::hint::black_box;

fn new_game(rng: &mut ChaCha8Rng, opts: &Options) -> Game {
    let deps = Seat::ALL.map(|s| Deployment::random(s, opts, rng));
    Game::new(*opts, &deps).expect("random deployments are legal")
}

/// Play a random game to its end with the allocation-free API; returns the number of steps.
fn random_game(rng: &mut ChaCha8Rng, opts: &Options, buf: &mut Vec<(Station, Station)>) -> u32 {
    let mut g = new_game(rng, opts);
    while !g.is_over() {
        g.legal_pairs(buf);
        let (f, t) = buf[rng.random_range(0..buf.len())];
        g.play_fast(f, t);
    }
    g.steps()
}

/// A random Hidden Front game to its end; returns the number of steps.
fn random_hidden_front_game(rng: &mut ChaCha8Rng, buf: &mut Vec<(Station, Station)>) -> u32 {
    let opts = Options::for_variant(Variant::HiddenFront);
    let deps: Vec<Deployment> = Variant::HiddenFront
        .seats()
        .iter()
        .map(|&s| Deployment::random_for(Variant::HiddenFront, s, &opts, rng))
        .collect();
    let mut g = Game::start(Variant::HiddenFront, opts, &deps).expect("legal deployments");
    while !g.is_over() {
        g.legal_pairs(buf);
        let (f, t) = buf[rng.random_range(0..buf.len())];
        g.play_fast(f, t);
    }
    g.steps()
}

/// A realistic mid-game position: 80 random moves into a random game (still ongoing).
fn mid_game() -> Game {
    let opts = Options::default();
    let mut seed = 1;
    loop {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut g = new_game(&mut rng, &opts);
        let mut buf = Vec::new();
        for _ in 0..80 {
            if g.is_over() {
                break;
            }
            g.legal_pairs(&mut buf);
            let (f, t) = buf[rng.random_range(0..buf.len())];
            g.play_fast(f, t);
        }
        if !g.is_over() && g.legal_move_count() >= 20 {
            return g;
        }
        seed += 1;
    }
}

fn bench(c: &mut Criterion) {
    let g = mid_game();
    let mut buf = Vec::with_capacity(512);
    let mut grp = c.benchmark_group("movegen");
    grp.throughput(Throughput::Elements(1));
    grp.bench_function("legal_pairs_mid_game", |b| {
        b.iter(|| {
            black_box(&g).legal_pairs(&mut buf);
            black_box(buf.len())
        })
    });
    grp.bench_function("legal_move_count_mid_game", |b| {
        b.iter(|| black_box(&g).legal_move_count())
    });
    grp.bench_function("legal_moves_with_paths_mid_game", |b| {
        b.iter(|| black_box(&g).legal_moves().len())
    });
    grp.finish();

    let opts = Options::default();
    let mut grp = c.benchmark_group("games");
    grp.throughput(Throughput::Elements(1));
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    grp.bench_function("random_game_to_end", |b| b.iter(|| random_game(&mut rng, &opts, &mut buf)));
    grp.bench_function("random_hidden_front_game_to_end", |b| {
        b.iter(|| random_hidden_front_game(&mut rng, &mut buf))
    });
    grp.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
