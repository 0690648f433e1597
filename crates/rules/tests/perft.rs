//! Perft for both games (as shakmaty's `tests/perft.rs`): fixed positions in
//! `tests/fixtures/perft.json`, each with the number of leaf nodes of the move tree at depth 1,
//! 2, … (depth 1 = the legal moves of the seat to move; a move is one seat's turn, so in the
//! four-player game depth 2 is a move of the next seat in play). Only moves are counted (no
//! timeouts, draws or surrenders), and a finished game has no moves.
//!
//! The counts were generated once by the engine (`print_fixtures` below) and are a regression
//! guard: a change to the move generator, to `apply` or to a rule that alters any count fails
//! here with the position's name. On the way, every node is checked against the crate's second
//! move generator (`legal_moves_from`, which `apply` validates with) and, where a fixture has
//! `by_hand`, its depth-1 count against a count made by hand (the fixture's `note` says how).
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use serde_json::Value;
use siguo_rules::*;

const FIXTURES: &str = include_str!("fixtures/perft.json");

/// Leaf nodes at `depth`, through the public API: `legal_moves` and `apply` above the leaves,
/// `legal_move_count` at depth 1. At every node the fast generator's count must equal the
/// second generator's (`legal_moves_from` summed over the mover's stations); `line` is the path
/// from the root, named in an error.
fn perft(g: &Game, depth: usize, line: &mut Vec<String>) -> Result<u64, String> {
    let fast = g.legal_move_count();
    let second = second_generator(g);
    if fast != second {
        return Err(format!(
            "after [{}]: legal_move_count {fast}, legal_moves_from {second}",
            line.join(" ")
        ));
    }
    if depth <= 1 {
        return Ok(fast as u64);
    }
    let mut leaves = 0;
    for m in g.legal_moves() {
        let mut next = g.clone();
        next.apply(&Action::Move { from: m.from, to: m.to })
            .map_err(|e| format!("after [{}]: {} refused: {e}", line.join(" "), m.notation()))?;
        line.push(m.notation());
        leaves += perft(&next, depth - 1, line)?;
        line.pop();
    }
    Ok(leaves)
}

/// The legal moves of the seat to move, counted by the second generator.
fn second_generator(g: &Game) -> usize {
    match g.turn() {
        Some(seat) => g.stations_of(seat).into_iter().map(|s| g.legal_moves_from(s).len()).sum(),
        None => 0,
    }
}

struct Fixture {
    name: String,
    position: Position,
    counts: Vec<u64>,
    by_hand: Option<u64>,
}

fn fixtures() -> Vec<Fixture> {
    let all: Vec<Value> = serde_json::from_str(FIXTURES).expect("perft.json is a JSON array");
    all.into_iter()
        .map(|f| {
            let name = f["name"].as_str().expect("a fixture has a name").to_string();
            let position = serde_json::from_value(f["position"].clone())
                .unwrap_or_else(|e| panic!("{name}: bad position: {e}"));
            let counts = serde_json::from_value(f["counts"].clone())
                .unwrap_or_else(|e| panic!("{name}: bad counts: {e}"));
            Fixture { name, position, counts, by_hand: f["by_hand"].as_u64() }
        })
        .collect()
}

#[test]
fn perft_counts_of_fixed_positions() {
    let fixtures = fixtures();
    let mut failures = Vec::new();
    for f in &fixtures {
        let g = match Game::from_position(&f.position) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{}: position refused: {e}", f.name));
                continue;
            }
        };
        if let Some(hand) = f.by_hand {
            if f.counts.first() != Some(&hand) {
                failures.push(format!("{}: depth 1 is {:?}, by hand {hand}", f.name, f.counts));
            }
        }
        for (i, &want) in f.counts.iter().enumerate() {
            match perft(&g, i + 1, &mut Vec::new()) {
                Ok(got) if got == want => {}
                Ok(got) => {
                    failures.push(format!("{} depth {}: {got}, expected {want}", f.name, i + 1))
                }
                Err(e) => failures.push(format!("{} depth {}: {e}", f.name, i + 1)),
            }
        }
    }
    assert!(failures.is_empty(), "perft mismatches:\n{}", failures.join("\n"));
}

/// The fixtures cover what the file promises: both games, openings and mid-game positions, an
/// eliminated seat, and a few depth-1 counts made by hand.
#[test]
fn perft_fixtures_cover_both_games() {
    let fixtures = fixtures();
    let of = |v: Variant| fixtures.iter().filter(move |f| f.position.variant == v);
    assert!(of(Variant::FourPlayer).count() >= 5);
    assert!(of(Variant::HiddenFront).count() >= 5);
    assert!(fixtures.iter().any(|f| !f.position.eliminated.is_empty()));
    for v in [Variant::FourPlayer, Variant::HiddenFront] {
        assert!(of(v).any(|f| f.by_hand.is_some()), "{v:?}: no count by hand");
        assert!(of(v).any(|f| f.position.steps > 0), "{v:?}: no mid-game position");
        assert!(of(v).any(|f| f.counts.len() >= 3), "{v:?}: nothing at depth 3");
    }
    let mut names: Vec<&str> = fixtures.iter().map(|f| f.name.as_str()).collect();
    names.sort();
    names.dedup();
    assert_eq!(names.len(), fixtures.len(), "fixture names are unique");
}

// ----- making the fixtures -----

/// Prints `fixtures/perft.json` as it was made: positions from fixed seeds (ChaCha8) and by hand,
/// counted by the engine. Run it to add a position, then check the new counts by other means
/// before committing them:
/// `cargo test --workspace --exclude siguo --exclude siguo-tools --exclude siguo-bots --test perft -- --ignored --nocapture`
#[test]
#[ignore]
fn print_fixtures() {
    let mut out = Vec::new();
    for (name, made, by_hand, pos, depth) in made_positions() {
        let g = Game::from_position(&pos).unwrap();
        let counts: Vec<u64> =
            (1..=depth).map(|d| perft(&g, d, &mut Vec::new()).unwrap()).collect();
        let hand = by_hand.map(|n| format!("\n    \"by_hand\": {n},")).unwrap_or_default();
        out.push(format!(
            "  {{\n    \"name\": {},\n    \"note\": {},{hand}\n    \"counts\": {},\n    \"position\": {}\n  }}",
            Value::from(name),
            Value::from(made),
            serde_json::to_string(&counts).unwrap(),
            serde_json::to_string(&pos).unwrap(),
        ));
    }
    println!("[\n{}\n]", out.join(",\n"));
}

type Made = (String, String, Option<u64>, Position, usize);

fn made_positions() -> Vec<Made> {
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    let fp = Options::for_variant(Variant::FourPlayer);
    let hf = Options::for_variant(Variant::HiddenFront);
    let not_commander = Options { flag_capture: FlagCapture::NotCommander, ..fp };
    let mut v: Vec<Made> = Vec::new();
    let mut seeded = |name: &str, variant, opts, seed, plies, depth| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let pos = random_game(variant, opts, plies, &mut rng).to_position();
        let made =
            format!("random deployments from ChaCha8 seed {seed}, then {plies} random moves");
        v.push((name.to_string(), made, None, pos, depth));
    };
    seeded("four-player opening, seed 1", Variant::FourPlayer, fp, 1, 0, 3);
    seeded(
        "four-player opening, seed 2, not_commander",
        Variant::FourPlayer,
        not_commander,
        2,
        0,
        3,
    );
    seeded("four-player mid-game, seed 3, 40 moves", Variant::FourPlayer, fp, 3, 40, 3);
    seeded("four-player mid-game, seed 4, 160 moves", Variant::FourPlayer, fp, 4, 160, 3);
    seeded("hidden front opening, seed 1", Variant::HiddenFront, hf, 1, 0, 3);
    seeded("hidden front opening, seed 2", Variant::HiddenFront, hf, 2, 0, 3);
    seeded("hidden front mid-game, seed 5, 30 moves", Variant::HiddenFront, hf, 5, 30, 3);
    seeded("hidden front mid-game, seed 6, 90 moves", Variant::HiddenFront, hf, 6, 90, 3);
    v.push(eliminated_seat());
    for (name, variant, turn, pieces, count, note) in BY_HAND {
        v.push((name.into(), note.into(), Some(count), sparse(variant, turn, pieces), 3));
    }
    v
}

/// Random deployments, then `plies` random legal moves (fewer if the game ends).
fn random_game(variant: Variant, opts: Options, plies: usize, rng: &mut impl rand::Rng) -> Game {
    let deps: Vec<Deployment> =
        variant.seats().iter().map(|&s| Deployment::random_for(variant, s, &opts, rng)).collect();
    let mut g = Game::start(variant, opts, &deps).unwrap();
    let mut pairs = Vec::new();
    for _ in 0..plies {
        g.legal_pairs(&mut pairs);
        if pairs.is_empty() {
            break;
        }
        let (from, to) = pairs[rng.random_range(0..pairs.len())];
        g.apply(&Action::Move { from, to }).unwrap();
    }
    g
}

fn eliminated_seat() -> Made {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(8);
    let mut g = random_game(Variant::FourPlayer, Options::default(), 60, &mut rng);
    let turn = g.turn().unwrap();
    let out = turn.next();
    g.apply(&Action::Surrender { seat: out }).unwrap();
    let made = format!(
        "random deployments from ChaCha8 seed 8, 60 random moves, then {} surrendered \
         (its pieces removed, its turns skipped)",
        out.letter()
    );
    ("four-player, seed 8, a seat eliminated".into(), made, None, g.to_position(), 3)
}

/// A sparse position from "station:piece" pairs, e.g. `"Nb6:NF Nc1:N1"`.
fn sparse(variant: Variant, turn: Seat, pieces: &str) -> Position {
    let piece = |sp: &str| {
        let (s, p) = sp.split_once(':').unwrap();
        (Station::parse(s).unwrap(), Piece::parse(p).unwrap())
    };
    Position {
        variant,
        turn,
        pieces: pieces.split_whitespace().map(piece).collect(),
        options: Options::for_variant(variant),
        eliminated: vec![],
        skips: Default::default(),
        steps: 0,
        quiet_steps: (variant == Variant::HiddenFront).then_some(0),
    }
}

/// Sparse positions whose depth-1 count was made by hand (the note says how).
const BY_HAND: [(&str, Variant, Seat, &str, u64, &str); 2] = [
    (
        "four-player sparse, rails, arc and camps",
        Variant::FourPlayer,
        Seat::N,
        "Nb6:NF Nc1:N1 Na5:N9 Eb6:EF Ec3:E8 Sb6:SF Sc3:S2 Wb6:WF Wc3:W3",
        97,
        "by hand, North to move: the engineer on Nc1 reaches every other rail station \
         (73 - 2 = 71: the rail net stays connected without Na5) and steps by road to Nc2 and \
         the camps Nb2, Nd2 = 74; the commander on Na5 slides along row 5 (Nb5-Ne5, 4), down \
         column a to Na1 (4), on through the centre (Cc3 Cc2 Cc1, then Se1-Se5: 8) or round the \
         arc (Ee1-Ee5: 5), and steps by road to Na6 and the camp Nb4 (2) = 23; the flag none: 97",
    ),
    (
        "hidden front sparse, front and mountains",
        Variant::HiddenFront,
        Seat::S,
        "A7:S1 B7:S9 D8:S5 B12:SF C6:N3 A5:N4 D5:N2 D1:NF",
        43,
        "by hand, South to move: the engineer on A7 reaches by rail the 28 empty rail stations \
         (32 less A7, B7, A5, C6; D6 and row 2 by way of column E), attacks A5 and C6, and steps \
         by road into the camp B8 (A7 is one of its diagonals) = 31; the commander on B7 (mountain above it) slides east along row 7 (C7 D7 E7, 3; A7 is \
         its own) and steps into the camp B8 = 4; the colonel in the camp D8 steps to C8 D7 D9 \
         E8 and diagonally to C7 E7 C9 E9 = 8; the flag none: 43",
    ),
];
