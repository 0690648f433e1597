//! Sensible, varied deployments: the flag in a headquarters behind mines, bombs where attackers
//! come through, strong pieces on the front rails, engineers kept back for later. Both games lay a
//! seat's half out alike (local `a1`..`e6`, row 1 the front), so one plan serves both; Hidden
//! Front forbids a mine in a headquarters and a bomb in the front row whatever the options say.
use rand::seq::SliceRandom;
use rand::Rng;
use siguo_rules::{Deployment, Options, Rank, Seat, Station, Variant};
use std::collections::BTreeMap;

struct Builder {
    variant: Variant,
    seat: Seat,
    free: Vec<(u8, u8)>,
    placed: BTreeMap<Station, Rank>,
}

impl Builder {
    /// The station of local (column 0..5, row 1..=6).
    fn local(&self, col: u8, row: u8) -> Station {
        self.variant.board().station(self.seat, col, row).expect("a station of the seat's half")
    }
    fn take(&mut self, col: u8, row: u8, rank: Rank) -> bool {
        match self.free.iter().position(|&c| c == (col, row)) {
            Some(i) => {
                self.free.swap_remove(i);
                self.placed.insert(self.local(col, row), rank);
                true
            }
            None => false,
        }
    }
    /// Put `rank` on a random free station accepted by `ok`; any free station if none is.
    fn place<R: Rng + ?Sized>(&mut self, rank: Rank, rng: &mut R, ok: impl Fn(u8, u8) -> bool) {
        let cands: Vec<(u8, u8)> = self.free.iter().copied().filter(|&(c, r)| ok(c, r)).collect();
        let (c, r) = if cands.is_empty() {
            self.free[rng.random_range(0..self.free.len())]
        } else {
            cands[rng.random_range(0..cands.len())]
        };
        self.take(c, r, rank);
    }
}

/// A sensible random deployment for `seat` of `variant`; always legal (falls back to a uniformly
/// random one).
pub fn sensible<R: Rng + ?Sized>(
    variant: Variant,
    seat: Seat,
    options: &Options,
    rng: &mut R,
) -> Deployment {
    let hidden_front = variant == Variant::HiddenFront;
    let camps = [(1u8, 2u8), (3, 2), (2, 3), (1, 4), (3, 4)];
    let free: Vec<(u8, u8)> = (1..=6u8)
        .flat_map(|r| (0..5u8).map(move |c| (c, r)))
        .filter(|cr| !camps.contains(cr))
        .collect();
    let mut b = Builder { variant, seat, free, placed: BTreeMap::new() };
    let flag_col: u8 = if rng.random_bool(0.5) { 1 } else { 3 };
    let other_hq = 4 - flag_col;
    b.take(flag_col, 6, Rank::Flag);
    // Mines guard the flag: its two row-6 neighbours and the station in front of it.
    let mut guards = [(flag_col - 1, 6u8), (flag_col + 1, 6), (flag_col, 5)];
    guards.shuffle(rng);
    let mines_on_guard = if rng.random_bool(0.7) { 3 } else { 2 };
    for &(c, r) in &guards[..mines_on_guard] {
        b.take(c, r, Rank::Mine);
    }
    for _ in mines_on_guard..3 {
        // The last mine either fakes a flag in the other headquarters or guards the flag's flank.
        // (Hidden Front: no mine in a headquarters.)
        if !hidden_front && rng.random_bool(0.5) && b.take(other_hq, 6, Rank::Mine) {
            continue;
        }
        b.place(Rank::Mine, rng, |c, r| r == 5 || (r == 6 && !(hidden_front && c % 2 == 1)));
    }
    // Whatever guard station is left gets a strong-ish defender.
    for &(c, r) in &guards[mines_on_guard..] {
        let rank = [Rank::Brigadier, Rank::Colonel, Rank::Bomb][rng.random_range(0..3)];
        b.take(c, r, rank);
    }
    let bombs_left = 2 - b.placed.values().filter(|&&r| r == Rank::Bomb).count();
    // Bombs: one near the flag's side (to meet a raider), one in the middle rows.
    let front_ok = options.bombs_front_row && !hidden_front;
    for i in 0..bombs_left {
        let near_flag = i == 0;
        b.place(Rank::Bomb, rng, |c, r| {
            (r >= 2 || front_ok)
                && r <= 5
                && if near_flag { r >= 3 && c.abs_diff(flag_col) <= 1 } else { r <= 4 }
        });
    }
    // The commander and the general lead from the front rails, on different sides.
    let cmd_side: u8 = rng.random_range(0..2);
    b.place(Rank::Commander, rng, |c, r| r <= 3 && (if cmd_side == 0 { c <= 2 } else { c >= 2 }));
    b.place(Rank::General, rng, |c, r| r <= 3 && (if cmd_side == 0 { c >= 2 } else { c <= 2 }));
    for _ in 0..2 {
        b.place(Rank::Division, rng, |_, r| r <= 4);
    }
    // Engineers stay back, to clear mines later.
    for _ in 0..3 {
        b.place(Rank::Engineer, rng, |_, r| (3..=5).contains(&r));
    }
    // The other headquarters holds a small piece (a decoy), unless a mine is already there.
    if b.free.contains(&(other_hq, 6)) {
        let rank = [Rank::Lieutenant, Rank::Captain][rng.random_range(0..2)];
        b.take(other_hq, 6, rank);
    }
    let mut rest: Vec<Rank> = Rank::full_set();
    for r in b.placed.values() {
        let i = rest.iter().position(|x| x == r).expect("placed more pieces of a kind than exist");
        rest.remove(i);
    }
    rest.shuffle(rng);
    let free = std::mem::take(&mut b.free);
    for ((c, r), rank) in free.into_iter().zip(rest) {
        let st = b.local(c, r);
        b.placed.insert(st, rank);
    }
    let d = Deployment { seat, pieces: b.placed };
    match d.validate_for(variant, options) {
        Ok(()) => d,
        Err(_) => Deployment::random_for(variant, seat, options, rng),
    }
}
