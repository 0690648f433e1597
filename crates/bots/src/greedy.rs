//! The `greedy` bot: one ply, a simple expected-value heuristic, no memory of the past.
use crate::search::{value, WIN};
use crate::{deploy, geo, Bot};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_rules::{
    CombatOutcome, Deployment, Event, Move, Options, Rank, Seat, Station, Variant, View,
};

pub struct GreedyBot {
    rng: ChaCha8Rng,
}

impl GreedyBot {
    pub fn new(seed: u64) -> GreedyBot {
        GreedyBot { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

/// Value for the attacker of one combat outcome.
fn combat_value(a: Rank, d: Rank, view: &View) -> f64 {
    let opts = view.options;
    if d == Rank::Flag {
        return 4_000.0;
    }
    let outcome = if a == Rank::Bomb || d == Rank::Bomb {
        CombatOutcome::BothRemoved
    } else if d == Rank::Mine {
        match (a, opts.mines) {
            (Rank::Engineer, _) => CombatOutcome::AttackerWon,
            (_, siguo_rules::MineRule::Invincible) => CombatOutcome::DefenderWon,
            _ => CombatOutcome::BothRemoved,
        }
    } else {
        match a.level().cmp(&d.level()) {
            std::cmp::Ordering::Greater => CombatOutcome::AttackerWon,
            std::cmp::Ordering::Less => CombatOutcome::DefenderWon,
            std::cmp::Ordering::Equal => CombatOutcome::BothRemoved,
        }
    };
    (match outcome {
        CombatOutcome::AttackerWon => value(d),
        CombatOutcome::DefenderWon => -value(a),
        CombatOutcome::BothRemoved => value(d) - value(a),
    }) as f64
}

/// Distance from a station to the nearest headquarters of a live enemy seat.
fn to_enemy_hq(st: Station, me: Seat, view: &View) -> u8 {
    geo::enemies(view.variant, me)
        .filter(|s| !view.eliminated.contains(s))
        .flat_map(|s| geo::headquarters(view.variant, s))
        .map(|hq| geo::dist(st, hq))
        .min()
        .unwrap_or(0)
}

impl Bot for GreedyBot {
    fn deploy_for(&mut self, variant: Variant, seat: Seat, options: &Options) -> Deployment {
        deploy::sensible(variant, seat, options, &mut self.rng)
    }

    fn observe(&mut self, _event: &Event) {}

    fn choose(&mut self, view: &View, moves: &[Move]) -> Move {
        assert!(!moves.is_empty(), "choose() needs at least one legal move");
        let Some(me) = view.turn else { return moves[0].clone() };
        let mut best = (f64::NEG_INFINITY, 0);
        for (i, m) in moves.iter().enumerate() {
            let Some(rank) = view.pieces.get(&m.from).and_then(|p| p.rank()) else { continue };
            let mut score = 0.0;
            if let Some(target) = view.pieces.get(&m.to) {
                score += match target.rank() {
                    Some(Rank::Flag) => WIN as f64,
                    Some(d) => combat_value(rank, d, view),
                    None if m.to.is_headquarters() => {
                        // Flag or not, about even odds; otherwise most likely a mine.
                        0.5 * 4_000.0 + 0.5 * combat_value(rank, Rank::Mine, view)
                    }
                    None => {
                        let set: Vec<Rank> =
                            Rank::full_set().into_iter().filter(|&r| r != Rank::Flag).collect();
                        set.iter().map(|&d| combat_value(rank, d, view)).sum::<f64>()
                            / set.len() as f64
                    }
                };
            }
            let before = to_enemy_hq(m.from, me, view) as f64;
            let after = to_enemy_hq(m.to, me, view) as f64;
            score += 10.0 * (before - after) + 5.0 * self.rng.random::<f64>();
            if score > best.0 {
                best = (score, i);
            }
        }
        moves[best.1].clone()
    }
}
