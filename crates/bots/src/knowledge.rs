//! What every piece can still be, from public information only.
//!
//! The tracker follows pieces through the public events (a `Moved` event names its path and the
//! combat outcome, never a rank) and records, per piece:
//! * its owner and, when known, the station it was deployed on (deployment rules bound its rank);
//! * whether it ever moved (then it is not a mine nor a flag), whether a turning rail path showed
//!   it to be an engineer;
//! * every combat it took part in (the outcome bounds both ranks; a captured flag; a bomb);
//! * a revealed flag and the removed commander.
//!
//! Ranks the viewer may see come from its [`View`] only. [`Knowledge::domains`] turns all this
//! into a set of possible ranks per piece (propagating combat relations and piece counts), and
//! [`Knowledge::sample`] draws complete identity assignments consistent with it.
//!
//! It works on either board: the game is that of the first event naming a station (or of the
//! first view); events that come before are kept until then.
use crate::geo;
use rand::Rng;
use siguo_rules::{
    CombatOutcome, ElimReason, Event, FlagCapture, MineRule, Options, Piece, Rank, Seat, Station,
    Variant, View,
};
use std::collections::BTreeMap;

/// A set of ranks: bit `r as usize` for each possible [`Rank`].
pub type Dom = u16;
pub const ALL: Dom = (1 << 12) - 1;

pub fn bit(r: Rank) -> Dom {
    1 << (r as u16)
}

pub const MOVABLE: Dom = ALL & !(1 << Rank::Flag as u16) & !(1 << Rank::Mine as u16);

pub fn ranks(d: Dom) -> impl Iterator<Item = Rank> {
    Rank::ALL.into_iter().filter(move |&r| d & bit(r) != 0)
}

#[derive(Clone, Debug)]
struct Tracked {
    owner: Seat,
    /// Deployment station, when known.
    origin: Option<Station>,
    /// Current station; `None` once removed.
    at: Option<Station>,
    moved: bool,
    /// Attacks and long rail slides (three stations or more): behaviour of a strong piece.
    charges: u16,
    /// Ranks still possible from evidence about this piece alone.
    dom: Dom,
}

#[derive(Clone, Copy, Debug)]
struct Combat {
    attacker: usize,
    defender: usize,
    outcome: CombatOutcome,
    flag_captured: bool,
}

/// Public knowledge about every piece of the game, as one viewer may have it.
#[derive(Clone, Debug, Default)]
pub struct Knowledge {
    pieces: Vec<Tracked>,
    at: BTreeMap<Station, usize>,
    combats: Vec<Combat>,
    eliminated: [bool; 4],
    started: bool,
    variant: Variant,
    /// Events seen before the game was known (none of them names a station).
    early: Vec<Event>,
    /// An event did not fit what we tracked: rebuild from the next view.
    broken: bool,
    last_steps: u32,
}

/// Outcome of `attacker` (rank `a`) moving onto `defender` (rank `d`), by rules.md §6.
fn outcome_of(a: Rank, d: Rank, options: &Options) -> (CombatOutcome, bool) {
    use CombatOutcome::*;
    if d == Rank::Flag {
        return (if a == Rank::Bomb { BothRemoved } else { AttackerWon }, true);
    }
    if a == Rank::Bomb || d == Rank::Bomb {
        return (BothRemoved, false);
    }
    if d == Rank::Mine {
        return match (a, options.mines) {
            (Rank::Engineer, _) => (AttackerWon, false),
            (_, MineRule::Invincible) => (DefenderWon, false),
            (_, MineRule::Mutual) => (BothRemoved, false),
        };
    }
    let (la, ld) = (a.level().unwrap_or(0), d.level().unwrap_or(0));
    (
        match la.cmp(&ld) {
            std::cmp::Ordering::Greater => AttackerWon,
            std::cmp::Ordering::Less => DefenderWon,
            std::cmp::Ordering::Equal => BothRemoved,
        },
        false,
    )
}

fn flag_capture_allowed(a: Rank, options: &Options) -> bool {
    match options.flag_capture {
        FlagCapture::Any => true,
        FlagCapture::NotCommander => a != Rank::Commander,
        FlagCapture::EngineerOnly => a == Rank::Engineer,
    }
}

fn combat_consistent(a: Rank, d: Rank, c: &Combat, options: &Options) -> bool {
    if !a.is_movable() {
        return false;
    }
    if d == Rank::Flag && !flag_capture_allowed(a, options) {
        return false;
    }
    outcome_of(a, d, options) == (c.outcome, c.flag_captured)
}

impl Knowledge {
    pub fn new() -> Knowledge {
        Knowledge::default()
    }

    fn add(&mut self, owner: Seat, origin: Option<Station>, at: Option<Station>) {
        let id = self.pieces.len();
        self.pieces.push(Tracked { owner, origin, at, moved: false, charges: 0, dom: ALL });
        if let Some(s) = at {
            self.at.insert(s, id);
        }
    }

    /// The battle's first position: every seat's 25 pieces on its 25 non-camp stations.
    fn start(&mut self, variant: Variant) {
        let early = std::mem::take(&mut self.early);
        *self = Knowledge { started: true, variant, ..Knowledge::default() };
        let board = variant.board();
        for &seat in variant.seats() {
            for st in board.deployment_zone(seat) {
                self.add(seat, Some(st), Some(st));
            }
        }
        for e in &early {
            self.observe(e);
        }
    }

    /// The game of an event, when it names a station.
    fn variant_of(event: &Event) -> Option<Variant> {
        match event {
            Event::Moved { from, .. } => Some(from.variant()),
            Event::FlagRevealed { station, .. } => Some(station.variant()),
            _ => None,
        }
    }

    /// Start over from a view whose history we do not know (a bot that joins late).
    fn rebuild(&mut self, view: &View) {
        *self = Knowledge {
            started: true,
            variant: view.variant,
            last_steps: view.steps,
            ..Knowledge::default()
        };
        let fresh = view.steps == 0;
        for &seat in view.variant.seats() {
            self.eliminated[seat.index()] = view.eliminated.contains(&seat);
        }
        let mut alive = [0usize; 4];
        for (&st, sp) in &view.pieces {
            alive[sp.owner().index()] += 1;
            self.add(sp.owner(), fresh.then_some(st), Some(st));
        }
        // Removed pieces of live seats, of unknown identity, so that each seat still has 25.
        for &seat in view.variant.seats() {
            if !self.eliminated[seat.index()] {
                for _ in alive[seat.index()]..Rank::full_set().len() {
                    self.add(seat, None, None);
                }
            }
        }
    }

    fn remove(&mut self, id: usize) {
        if let Some(s) = self.pieces[id].at.take() {
            self.at.remove(&s);
        }
    }

    /// Feed one public event.
    pub fn observe(&mut self, event: &Event) {
        if !self.started {
            match Knowledge::variant_of(event) {
                Some(v) => self.start(v),
                None => {
                    // Only the four-player game eliminates a seat while it goes on.
                    if matches!(event, Event::Eliminated { .. }) {
                        self.start(Variant::FourPlayer);
                    } else {
                        self.early.push(event.clone());
                        return;
                    }
                }
            }
        }
        if self.broken {
            return;
        }
        match event {
            Event::Moved { from, to, path, combat, .. } => {
                let Some(&a) = self.at.get(from) else {
                    self.broken = true;
                    return;
                };
                let p = &mut self.pieces[a];
                p.moved = true;
                if combat.is_some() || path.len() >= 3 {
                    p.charges = p.charges.saturating_add(1);
                }
                p.dom &= MOVABLE;
                if !geo::is_straight(path) {
                    p.dom &= bit(Rank::Engineer);
                }
                match combat {
                    None => {
                        if self.at.contains_key(to) {
                            self.broken = true;
                            return;
                        }
                        self.at.remove(from);
                        self.at.insert(*to, a);
                        self.pieces[a].at = Some(*to);
                    }
                    Some(outcome) => {
                        let Some(&d) = self.at.get(to) else {
                            self.broken = true;
                            return;
                        };
                        self.combats.push(Combat {
                            attacker: a,
                            defender: d,
                            outcome: *outcome,
                            flag_captured: false,
                        });
                        match outcome {
                            CombatOutcome::AttackerWon => {
                                self.remove(d);
                                self.remove(a);
                                self.at.insert(*to, a);
                                self.pieces[a].at = Some(*to);
                            }
                            CombatOutcome::DefenderWon => self.remove(a),
                            CombatOutcome::BothRemoved => {
                                self.remove(a);
                                self.remove(d);
                            }
                        }
                    }
                }
            }
            Event::FlagRevealed { seat, station } => {
                match self.at.get(station) {
                    Some(&f) => self.pieces[f].dom &= bit(Rank::Flag),
                    None => self.broken = true,
                }
                // The commander died in the last combat: it is that seat's piece removed there.
                if let Some(c) = self.combats.last() {
                    for id in [c.attacker, c.defender] {
                        if self.pieces[id].owner == *seat && self.pieces[id].at.is_none() {
                            self.pieces[id].dom &= bit(Rank::Commander);
                        }
                    }
                }
            }
            Event::Eliminated { seat, reason } => {
                if *reason == ElimReason::FlagCaptured {
                    if let Some(c) = self.combats.last_mut() {
                        if self.pieces[c.defender].owner == *seat {
                            c.flag_captured = true;
                        }
                    }
                }
                self.eliminated[seat.index()] = true;
                let ids: Vec<usize> = self
                    .at
                    .values()
                    .copied()
                    .filter(|&id| self.pieces[id].owner == *seat)
                    .collect();
                for id in ids {
                    self.remove(id);
                }
            }
            Event::Turn { steps, .. } => self.last_steps = *steps,
            _ => {}
        }
    }

    /// Make the tracker agree with `view` (rebuilding it if it does not) and record every rank
    /// the view shows.
    pub fn sync(&mut self, view: &View) {
        if !self.started {
            if view.steps == 0 {
                self.start(view.variant);
            } else {
                self.rebuild(view);
            }
        }
        let agrees = !self.broken
            && self.variant == view.variant
            && view.steps >= self.last_steps
            && self.at.len() == view.pieces.len()
            && view.pieces.iter().all(|(st, sp)| {
                self.at.get(st).is_some_and(|&id| self.pieces[id].owner == sp.owner())
            });
        if !agrees {
            self.rebuild(view);
        }
        for (st, sp) in &view.pieces {
            if let Some(r) = sp.rank() {
                let id = self.at[st];
                self.pieces[id].dom = bit(r);
            }
        }
        self.last_steps = view.steps;
    }

    /// The piece id on a station (after [`Knowledge::sync`]).
    pub fn id_at(&self, st: Station) -> Option<usize> {
        self.at.get(&st).copied()
    }

    pub fn owner(&self, id: usize) -> Seat {
        self.pieces[id].owner
    }

    pub fn alive(&self, id: usize) -> Option<Station> {
        self.pieces[id].at
    }

    pub fn len(&self) -> usize {
        self.pieces.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Possible ranks of every piece, all public knowledge combined. `flags_revealed` as in the view.
    pub fn domains(&self, options: &Options, flags_revealed: &[Seat]) -> Vec<Dom> {
        let base = self.unary(options, flags_revealed);
        let mut d = base.clone();
        if self.propagate(&mut d, options, true) {
            return d;
        }
        // Inconsistent (should not happen): fall back to what each piece says on its own.
        let mut d = base;
        if self.propagate(&mut d, options, false) {
            return d;
        }
        self.unary(options, flags_revealed)
            .into_iter()
            .map(|x| if x == 0 { ALL } else { x })
            .collect()
    }

    fn unary(&self, options: &Options, flags_revealed: &[Seat]) -> Vec<Dom> {
        self.pieces
            .iter()
            .map(|p| {
                let mut d = p.dom;
                if p.moved {
                    d &= MOVABLE;
                }
                if let Some(o) = p.origin {
                    let row = o.row();
                    let hidden_front = o.variant() == Variant::HiddenFront;
                    if !o.is_headquarters() {
                        d &= !bit(Rank::Flag);
                    }
                    if row < 5 || (hidden_front && o.is_headquarters()) {
                        d &= !bit(Rank::Mine);
                    }
                    if row == 1 && (hidden_front || !options.bombs_front_row) {
                        d &= !bit(Rank::Bomb);
                    }
                    // A flag never moves: it is still where it was deployed.
                    if p.at != Some(o) {
                        d &= !bit(Rank::Flag) & !bit(Rank::Mine);
                    }
                }
                let live_seat = !self.eliminated[p.owner.index()];
                if live_seat && p.at.is_none() {
                    d &= !bit(Rank::Flag);
                    if !flags_revealed.contains(&p.owner) {
                        d &= !bit(Rank::Commander);
                    }
                }
                if p.at.is_some() && flags_revealed.contains(&p.owner) {
                    d &= !bit(Rank::Commander);
                }
                d
            })
            .collect()
    }

    /// Arc consistency over combats plus piece counts per seat. False if some domain is empty.
    fn propagate(&self, d: &mut [Dom], options: &Options, use_combats: bool) -> bool {
        let by_seat: Vec<Vec<usize>> = Seat::ALL
            .iter()
            .map(|&s| (0..self.pieces.len()).filter(|&i| self.pieces[i].owner == s).collect())
            .collect();
        // (Seats that do not play, Hidden Front's E and W, have no pieces and are skipped.)
        for _round in 0..12 {
            let mut changed = false;
            if use_combats {
                for c in &self.combats {
                    let (mut na, mut nd) = (0, 0);
                    for ra in ranks(d[c.attacker]) {
                        for rd in ranks(d[c.defender]) {
                            if combat_consistent(ra, rd, c, options) {
                                na |= bit(ra);
                                nd |= bit(rd);
                            }
                        }
                    }
                    if na != d[c.attacker] || nd != d[c.defender] {
                        changed = true;
                        d[c.attacker] = na;
                        d[c.defender] = nd;
                    }
                }
            }
            for (s, ids) in by_seat.iter().enumerate() {
                if ids.len() != 25 || self.eliminated[s] {
                    continue;
                }
                for r in Rank::ALL {
                    let b = bit(r);
                    let n = r.count() as usize;
                    let fixed = ids.iter().filter(|&&i| d[i] == b).count();
                    let cand = ids.iter().filter(|&&i| d[i] & b != 0).count();
                    if fixed >= n && cand > fixed {
                        for &i in ids {
                            if d[i] != b && d[i] & b != 0 {
                                d[i] &= !b;
                                changed = true;
                            }
                        }
                    } else if cand == n && fixed < n {
                        for &i in ids {
                            if d[i] & b != 0 && d[i] != b {
                                d[i] = b;
                                changed = true;
                            }
                        }
                    }
                }
            }
            if d.contains(&0) {
                return false;
            }
            if !changed {
                break;
            }
        }
        true
    }

    /// Whether an assignment satisfies every recorded combat.
    fn violations(&self, ranks: &[Rank], options: &Options) -> usize {
        self.combats
            .iter()
            .filter(|c| !combat_consistent(ranks[c.attacker], ranks[c.defender], c, options))
            .count()
    }

    /// Draw a complete identity assignment consistent with `doms` (and, as far as a few retries
    /// manage, with every combat), and return the pieces on the board.
    ///
    /// With `weighted`, each piece's ranks are also weighted by how likely its observed behaviour
    /// makes them ([`Knowledge::behaviour`]); without, only by the counts left.
    pub fn sample<R: Rng + ?Sized>(
        &self,
        doms: &[Dom],
        options: &Options,
        weighted: bool,
        rng: &mut R,
    ) -> BTreeMap<Station, Piece> {
        let bias: Vec<[f64; 12]> = if weighted {
            (0..self.pieces.len()).map(|i| self.behaviour(i)).collect()
        } else {
            vec![[1.0; 12]; self.pieces.len()]
        };
        let mut best: Option<(usize, Vec<Rank>)> = None;
        for _ in 0..4 {
            let ranks = self.sample_once(doms, &bias, rng);
            let v = self.violations(&ranks, options);
            if best.as_ref().is_none_or(|(bv, _)| v < *bv) {
                best = Some((v, ranks));
            }
            if v == 0 {
                break;
            }
        }
        let ranks = best.expect("at least one sample").1;
        self.pieces
            .iter()
            .zip(ranks)
            .filter_map(|(p, rank)| p.at.map(|st| (st, Piece { owner: p.owner, rank })))
            .collect()
    }

    /// Relative likelihood of each rank for piece `id` given how it behaved: a piece that keeps
    /// attacking or charging down the rails is more likely a high officer (or a bomb); a piece
    /// that never moved from the back rows while the game went on is more likely a mine.
    pub fn behaviour(&self, id: usize) -> [f64; 12] {
        let p = &self.pieces[id];
        let mut w = [1.0; 12];
        let k = p.charges.min(3) as i32;
        if k > 0 {
            for r in Rank::ALL {
                if let Some(level) = r.level() {
                    w[r as usize] = (1.0 + 0.12 * (level as f64 - 1.0)).powi(k);
                }
            }
            w[Rank::Bomb as usize] = 1.5f64.powi(k);
        }
        let back = p.origin.is_some_and(|o| o.row() >= 5) && p.at == p.origin;
        if !p.moved && back && self.last_steps >= 40 {
            w[Rank::Mine as usize] = 1.0 + (self.last_steps as f64 / 40.0).min(3.0);
        }
        w
    }

    fn sample_once<R: Rng + ?Sized>(
        &self,
        doms: &[Dom],
        bias: &[[f64; 12]],
        rng: &mut R,
    ) -> Vec<Rank> {
        let mut out = vec![Rank::Flag; self.pieces.len()];
        for &seat in self.variant.seats() {
            if self.eliminated[seat.index()] {
                continue;
            }
            let ids: Vec<usize> =
                (0..self.pieces.len()).filter(|&i| self.pieces[i].owner == seat).collect();
            let mut attempt = 0;
            loop {
                attempt += 1;
                if let Some(ranks) = sample_seat(&ids, doms, bias, rng, attempt > 12) {
                    for (i, r) in ids.iter().zip(ranks) {
                        out[*i] = r;
                    }
                    break;
                }
            }
        }
        out
    }
}

/// One seat: assign the remaining pieces of each kind to its pieces, most constrained first,
/// each rank drawn with weight (copies left) / (pieces that could still take it) × the piece's
/// behaviour bias.
fn sample_seat<R: Rng + ?Sized>(
    ids: &[usize],
    doms: &[Dom],
    bias: &[[f64; 12]],
    rng: &mut R,
    relax: bool,
) -> Option<Vec<Rank>> {
    let mut left = [0u32; 12];
    for r in Rank::ALL {
        left[r as usize] = r.count() as u32;
    }
    let mut order: Vec<usize> = (0..ids.len()).collect();
    // Shuffle, then stable-sort by domain size: random among equally constrained pieces.
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    order.sort_by_key(|&k| doms[ids[k]].count_ones());
    let mut assigned: Vec<Option<Rank>> = vec![None; ids.len()];
    for (pos, &k) in order.iter().enumerate() {
        let dom = doms[ids[k]];
        let mut weights = [0f64; 12];
        let mut total = 0.0;
        for r in ranks(dom) {
            let n = left[r as usize];
            if n == 0 {
                continue;
            }
            let cand = order[pos..].iter().filter(|&&j| doms[ids[j]] & bit(r) != 0).count().max(1);
            let w = n as f64 / cand as f64 * bias[ids[k]][r as usize];
            weights[r as usize] = w;
            total += w;
        }
        let pick = if total > 0.0 {
            let mut x = rng.random::<f64>() * total;
            let mut chosen = None;
            for r in ranks(dom) {
                let w = weights[r as usize];
                if w > 0.0 {
                    chosen = Some(r);
                    if x < w {
                        break;
                    }
                    x -= w;
                }
            }
            chosen
        } else if relax {
            Rank::ALL.into_iter().find(|r| left[*r as usize] > 0)
        } else {
            None
        }?;
        left[pick as usize] -= 1;
        assigned[k] = Some(pick);
    }
    Some(assigned.into_iter().map(|r| r.expect("assigned")).collect())
}
