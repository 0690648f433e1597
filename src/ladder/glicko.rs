//! Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013), the hidden matchmaking
//! rating: used to pair and balance teams, never shown on the leaderboard (which shows points).
//!
//! Each ranked game is one rating period with one game for every player. In a team game a
//! player is rated against a **composite opponent**: the other team, with the mean of its
//! ratings and the root-mean-square of its deviations; the player's score is its own
//! [`Outcome::score`](super::Outcome::score) (a surrender or escape counts as a loss).
use serde::{Deserialize, Serialize};

/// Glicko scale ↔ Glicko-2 scale.
const SCALE: f64 = 173.7178;
/// System constant τ: how much the volatility may change (Glickman suggests 0.3–1.2).
pub const TAU: f64 = 0.5;
/// Convergence tolerance of the volatility iteration.
const EPSILON: f64 = 0.000_001;
pub const DEFAULT_RATING: f64 = 1500.0;
pub const DEFAULT_RD: f64 = 350.0;
pub const DEFAULT_VOLATILITY: f64 = 0.06;
/// A rating whose deviation is above this is provisional (shown with a `?`, no title, not on the
/// Hidden Front leaderboard; ladder.md "Hidden Front rated games").
pub const PROVISIONAL_RD: f64 = 110.0;
/// Deviations never leave this range (a floor keeps ratings responsive).
pub const MIN_RD: f64 = 30.0;
pub const MAX_RD: f64 = 350.0;

/// A player's rating on the Glicko scale (1500 ± 350 for a newcomer).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    pub rating: f64,
    pub rd: f64,
    pub volatility: f64,
}

impl Default for Rating {
    fn default() -> Self {
        Rating { rating: DEFAULT_RATING, rd: DEFAULT_RD, volatility: DEFAULT_VOLATILITY }
    }
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// The expected score of `a` against `b` (0..1).
pub fn expected_score(a: Rating, b: Rating) -> f64 {
    expected((a.rating - DEFAULT_RATING) / SCALE, (b.rating - DEFAULT_RATING) / SCALE, b.rd / SCALE)
}

/// One rating period: `player` played `games` = (opponent, score in {0, 0.5, 1}).
/// With no games only the deviation grows (step 6 of the algorithm).
pub fn update(player: Rating, games: &[(Rating, f64)]) -> Rating {
    let mu = (player.rating - DEFAULT_RATING) / SCALE;
    let phi = player.rd / SCALE;
    let sigma = player.volatility;
    if games.is_empty() {
        let phi_star = (phi * phi + sigma * sigma).sqrt();
        return Rating { rd: (phi_star * SCALE).clamp(MIN_RD, MAX_RD), ..player };
    }
    // Step 3: estimated variance v; step 4: improvement Δ.
    let mut v_inv = 0.0;
    let mut sum = 0.0;
    for &(opp, s) in games {
        let mu_j = (opp.rating - DEFAULT_RATING) / SCALE;
        let phi_j = opp.rd / SCALE;
        let e = expected(mu, mu_j, phi_j);
        let gj = g(phi_j);
        v_inv += gj * gj * e * (1.0 - e);
        sum += gj * (s - e);
    }
    let v = 1.0 / v_inv;
    let delta = v * sum;
    // Step 5: new volatility by the Illinois algorithm.
    let a = (sigma * sigma).ln();
    let f = |x: f64| {
        let ex = x.exp();
        let d = phi * phi + v + ex;
        ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (TAU * TAU)
    };
    let mut big_a = a;
    let mut big_b = if delta * delta > phi * phi + v {
        (delta * delta - phi * phi - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * TAU) < 0.0 {
            k += 1.0;
        }
        a - k * TAU
    };
    let mut f_a = f(big_a);
    let mut f_b = f(big_b);
    let mut guard = 0;
    while (big_b - big_a).abs() > EPSILON && guard < 200 {
        let c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = c;
        f_b = f_c;
        guard += 1;
    }
    let sigma_new = (big_a / 2.0).exp();
    // Steps 6–8.
    let phi_star = (phi * phi + sigma_new * sigma_new).sqrt();
    let phi_new = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu_new = mu + phi_new * phi_new * sum;
    Rating {
        rating: mu_new * SCALE + DEFAULT_RATING,
        rd: (phi_new * SCALE).clamp(MIN_RD, MAX_RD),
        volatility: sigma_new,
    }
}

impl Rating {
    /// Provisional while the deviation is above [`PROVISIONAL_RD`].
    pub fn is_provisional(&self) -> bool {
        self.rd > PROVISIONAL_RD
    }
}

/// One two-player game as one rating period for both (Hidden Front): `a` scored `score_a`
/// (1 win, ½ draw, 0 loss) against `b`. Both new ratings come from the ratings before the game.
pub fn update_pair(a: Rating, b: Rating, score_a: f64) -> (Rating, Rating) {
    (update(a, &[(b, score_a)]), update(b, &[(a, 1.0 - score_a)]))
}

/// The composite opponent a team presents: mean rating, root-mean-square deviation, mean volatility.
pub fn composite(team: &[Rating]) -> Rating {
    let n = team.len().max(1) as f64;
    Rating {
        rating: team.iter().map(|r| r.rating).sum::<f64>() / n,
        rd: (team.iter().map(|r| r.rd * r.rd).sum::<f64>() / n).sqrt(),
        volatility: team.iter().map(|r| r.volatility).sum::<f64>() / n,
    }
}

/// Team strength for balancing: the sum of the members' ratings.
pub fn team_strength(team: &[Rating]) -> f64 {
    team.iter().map(|r| r.rating).sum()
}

/// Split four players into two teams of two with the closest strengths. Returns the indexes of
/// the two teams (`[[a, b], [c, d]]`, `a == 0`). Ties keep the first split found.
pub fn balance_four(r: [Rating; 4]) -> [[usize; 2]; 2] {
    let splits = [[[0, 1], [2, 3]], [[0, 2], [1, 3]], [[0, 3], [1, 2]]];
    let diff = |s: &[[usize; 2]; 2]| {
        (team_strength(&[r[s[0][0]], r[s[0][1]]]) - team_strength(&[r[s[1][0]], r[s[1][1]]])).abs()
    };
    let mut best = splits[0];
    for s in &splits[1..] {
        if diff(s) < diff(&best) {
            best = *s;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(rating: f64, rd: f64) -> Rating {
        Rating { rating, rd, volatility: DEFAULT_VOLATILITY }
    }

    /// The worked example of Glickman's paper: 1500/200/0.06 beats 1400/30, loses to 1550/100 and 1700/300.
    #[test]
    fn glickman_example() {
        let p = Rating { rating: 1500.0, rd: 200.0, volatility: 0.06 };
        let n =
            update(p, &[(r(1400.0, 30.0), 1.0), (r(1550.0, 100.0), 0.0), (r(1700.0, 300.0), 0.0)]);
        assert!((n.rating - 1464.06).abs() < 0.05, "{n:?}");
        assert!((n.rd - 151.52).abs() < 0.05, "{n:?}");
        assert!((n.volatility - 0.05999).abs() < 0.00001, "{n:?}");
    }

    #[test]
    fn winning_raises_losing_lowers_and_both_shrink_rd() {
        let a = Rating::default();
        let b = Rating::default();
        let win = update(a, &[(b, 1.0)]);
        let loss = update(b, &[(a, 0.0)]);
        let draw = update(a, &[(b, 0.5)]);
        assert!(win.rating > 1500.0 && loss.rating < 1500.0);
        assert!((win.rating - 1500.0 + (loss.rating - 1500.0)).abs() < 1e-6);
        assert!((draw.rating - 1500.0).abs() < 1e-6);
        assert!(win.rd < DEFAULT_RD && loss.rd < DEFAULT_RD);
    }

    #[test]
    fn a_pair_is_updated_at_once_from_the_ratings_before() {
        let (a, b) = (r(1600.0, 80.0), r(1450.0, 200.0));
        let (na, nb) = update_pair(a, b, 0.0);
        assert_eq!(na, update(a, &[(b, 0.0)]));
        assert_eq!(nb, update(b, &[(a, 1.0)]));
        assert!(na.rating < 1600.0 && nb.rating > 1450.0);
        // the underdog gains more than the favourite loses (its RD is larger)
        assert!(nb.rating - 1450.0 > 1600.0 - na.rating);
        assert!(Rating::default().is_provisional() && !r(1500.0, 110.0).is_provisional());
    }

    #[test]
    fn idle_period_grows_rd_within_bounds() {
        let p = r(1600.0, 100.0);
        let n = update(p, &[]);
        assert!(n.rd > 100.0 && n.rating == 1600.0);
        assert_eq!(update(r(1500.0, 350.0), &[]).rd, MAX_RD);
    }

    #[test]
    fn composite_and_expected() {
        let c = composite(&[r(1400.0, 30.0), r(1600.0, 40.0)]);
        assert_eq!(c.rating, 1500.0);
        assert!((c.rd - (0.5f64 * (900.0 + 1600.0)).sqrt()).abs() < 1e-9);
        assert!(expected_score(r(1700.0, 50.0), r(1500.0, 50.0)) > 0.5);
        assert!((expected_score(r(1500.0, 50.0), r(1500.0, 50.0)) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn balancing_pairs_strong_with_weak() {
        let teams =
            balance_four([r(2000.0, 50.0), r(1900.0, 50.0), r(1100.0, 50.0), r(1000.0, 50.0)]);
        assert_eq!(teams, [[0, 3], [1, 2]]);
        let teams =
            balance_four([r(1000.0, 50.0), r(2000.0, 50.0), r(1900.0, 50.0), r(1100.0, 50.0)]);
        assert_eq!(teams, [[0, 1], [2, 3]]);
    }
}
