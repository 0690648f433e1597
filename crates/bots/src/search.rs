//! Alpha-beta over a game whose hidden ranks were filled in by a sample (allies on one side),
//! with an evaluation in hundredths of a pawn-ish unit. Either game: a [`Side`] is a team of the
//! four-player game or one seat of Hidden Front.
use crate::geo;
use siguo_rules::{FlagCapture, Game, Piece, Rank, Seat, Station, Status, Variant};

/// Hidden Front's steps without combat that draw the game.
const HF_QUIET_LIMIT: i32 = siguo_rules::game::HF_QUIET_LIMIT as i32;
use std::time::Instant;

pub const WIN: i32 = 1_000_000;
pub const INF: i32 = 10_000_000;
const ELIM: i32 = 4_000;
const THREAT: i32 = 1_500;
const ADV: i32 = 4;

/// Material value of a piece (the flag is worth its seat, counted through elimination).
pub fn value(r: Rank) -> i32 {
    match r {
        Rank::Flag => 0,
        Rank::Mine => 250,
        Rank::Bomb => 550,
        Rank::Engineer => 300,
        Rank::Lieutenant => 100,
        Rank::Captain => 150,
        Rank::Major => 220,
        Rank::Colonel => 320,
        Rank::Brigadier => 450,
        Rank::Division => 600,
        Rank::General => 850,
        Rank::Commander => 1200,
    }
}

/// The side a search plays for: `me` and, in the four-player game, its partner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Side {
    pub variant: Variant,
    pub me: Seat,
}

impl Side {
    pub fn new(variant: Variant, me: Seat) -> Side {
        Side { variant, me }
    }
    /// Whether `seat` is on this side.
    pub fn has(self, seat: Seat) -> bool {
        geo::allied(self.variant, self.me, seat)
    }
}

/// Legal (from, to) pairs of the seat to move.
pub fn gen(g: &Game, out: &mut Vec<(Station, Station)>) {
    g.legal_pairs(out);
}

/// Play a move that `gen` produced (fast path: no events).
pub fn play_generated(g: &mut Game, from: Station, to: Station) {
    g.play_fast(from, to);
}

/// Play a move that may not be legal in this game; false (and the game unchanged) if it is not.
pub fn play(g: &mut Game, from: Station, to: Station) -> bool {
    if g.check_move(from, to).is_err() {
        return false;
    }
    g.play_fast(from, to);
    true
}

pub fn can_take_flag(r: Rank, flag_capture: FlagCapture) -> bool {
    r.is_movable()
        && match flag_capture {
            FlagCapture::Any => true,
            FlagCapture::NotCommander => r != Rank::Commander,
            FlagCapture::EngineerOnly => r == Rank::Engineer,
        }
}

/// Where each live seat's flag is in this (sampled) game.
fn flags(g: &Game) -> [Option<Station>; 4] {
    let mut f = [None; 4];
    let variant = g.variant();
    for &seat in variant.seats() {
        for hq in geo::headquarters(variant, seat) {
            if g.piece_at(hq) == Some(Piece { owner: seat, rank: Rank::Flag }) {
                f[seat.index()] = Some(hq);
            }
        }
    }
    f
}

/// Whether some enemy piece stands next to `flag` (of `owner`) and may take it.
pub fn flag_threatened(g: &Game, owner: Seat, flag: Station) -> bool {
    let fc = g.options().flag_capture;
    let v = g.variant();
    flag.neighbours().iter().any(|&nb| {
        !nb.is_headquarters()
            && g.piece_at(nb)
                .is_some_and(|p| !geo::allied(v, p.owner, owner) && can_take_flag(p.rank, fc))
    })
}

/// What the evaluation and the search use beyond the first version's material + progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// Mobility, frozen pieces, flag approaches, engineers against mines.
    pub rich_eval: bool,
    /// Plies of captures searched beyond the horizon (0: none).
    pub quiescence: u32,
}

impl SearchParams {
    pub const V1: SearchParams = SearchParams { rich_eval: false, quiescence: 0 };
    pub const V2: SearchParams = SearchParams { rich_eval: true, quiescence: 4 };
}

/// A seat with fewer movable pieces than this is near elimination by "no legal move".
const MOBILE_FLOOR: i32 = 6;
/// Per missing movable piece below the floor, squared.
const MOBILITY: i32 = 45;
/// An enemy piece two steps from a flag.
const APPROACH: i32 = 250;
/// An own mine next to the flag (an approach closed).
const GUARD: i32 = 60;
/// An engineer is worth this much more while the enemy still has mines.
const SAPPER: i32 = 120;

/// The terms of the richer evaluation, for `side`.
fn rich_terms(g: &Game, side: Side, fl: &[Option<Station>; 4], doomed: &[bool; 4]) -> i32 {
    let mut mobile = [0i32; 4];
    let mut engineers = [0i32; 2];
    let mut mines = [0i32; 2];
    let mut frozen = 0;
    let ti = |s: Seat| if side.has(s) { 0 } else { 1 };
    let variant = g.variant();
    for st in variant.board().stations() {
        let Some(p) = g.piece_at(st) else { continue };
        if doomed[p.owner.index()] {
            continue;
        }
        let own = ti(p.owner);
        match p.rank {
            Rank::Mine => mines[own] += 1,
            Rank::Engineer => engineers[own] += 1,
            _ => {}
        }
        if p.rank.is_movable() {
            if st.is_headquarters() {
                // Frozen for good: it keeps a third of its value (it still blocks and defends).
                let v = value(p.rank) * 2 / 3;
                frozen += if own == 0 { -v } else { v };
            } else {
                mobile[p.owner.index()] += 1;
            }
        }
    }
    let mut score = frozen;
    score += SAPPER * (engineers[0].min(2) * (mines[1] > 0) as i32)
        - SAPPER * (engineers[1].min(2) * (mines[0] > 0) as i32);
    for &seat in variant.seats() {
        if g.is_eliminated(seat) || doomed[seat.index()] {
            continue;
        }
        let sign = if side.has(seat) { 1 } else { -1 };
        let short = (MOBILE_FLOOR - mobile[seat.index()]).max(0);
        score -= sign * MOBILITY * short * short;
        let Some(f) = fl[seat.index()] else { continue };
        for &nb in f.neighbours() {
            if g.piece_at(nb).is_some_and(|p| p.owner == seat && p.rank == Rank::Mine) {
                score += sign * GUARD;
            }
        }
        for &st in geo::two_steps(f) {
            if g.piece_at(st)
                .is_some_and(|p| !geo::allied(variant, p.owner, seat) && p.rank.is_movable())
            {
                score -= sign * APPROACH;
            }
        }
    }
    score
}

/// Value of a position that is lost for sure (by "no legal move") but not yet over: below every
/// real result of the search, above every real loss.
const DOOMED: i32 = WIN / 2;

/// Static evaluation for `side` (positive is good for it); the richer terms when `rich`.
pub fn evaluate_with(g: &Game, side: Side, depth_left: u32, rich: bool) -> i32 {
    match g.status() {
        Status::Won { winner, .. } => {
            let v = WIN + depth_left as i32;
            return if winner == side.me.team() { v } else { -v };
        }
        Status::SeatWon { winner, .. } => {
            let v = WIN + depth_left as i32;
            return if side.has(winner) { v } else { -v };
        }
        Status::Draw { .. } => return 0,
        Status::Ongoing => {}
    }
    let fl = flags(g);
    let variant = g.variant();
    // Material and progress per seat; whether the seat has a piece that can ever move again.
    let mut material = [0i32; 4];
    let mut mobile = [false; 4];
    for st in variant.board().stations() {
        let Some(p) = g.piece_at(st) else { continue };
        let mut v = value(p.rank);
        if p.rank.is_movable() && !st.is_headquarters() {
            mobile[p.owner.index()] = true;
            let mut d = 12;
            for e in geo::enemies(variant, p.owner) {
                if let Some(f) = fl[e.index()] {
                    d = d.min(geo::dist(st, f) as i32);
                }
            }
            v += ADV * (12 - d.min(12));
        }
        material[p.owner.index()] += v;
    }
    // A seat in play without such a piece (mines and flags never move, a piece in a headquarters
    // never moves again) has no legal move at the start of its next turn and is eliminated then
    // (Hidden Front: loses). The horizon often ends before that turn, so the richer evaluation
    // counts the seat as gone already; the first version's evaluation stays as it was measured.
    let mut doomed = [false; 4];
    if rich {
        for &seat in variant.seats() {
            doomed[seat.index()] = !mobile[seat.index()] && !g.is_eliminated(seat);
        }
    }
    let gone = |seat: Seat| g.is_eliminated(seat) || doomed[seat.index()];
    if geo::own_side(variant, side.me).all(gone) {
        return -DOOMED;
    }
    if geo::enemies(variant, side.me).all(gone) {
        return DOOMED;
    }
    let mut score = 0;
    for &seat in variant.seats() {
        let sign = if side.has(seat) { -1 } else { 1 };
        if gone(seat) {
            // Its pieces go with it.
            score += sign * ELIM;
            continue;
        }
        score -= sign * material[seat.index()];
        if let Some(f) = fl[seat.index()] {
            if flag_threatened(g, seat, f) {
                score += sign * THREAT;
            }
        }
    }
    if rich {
        score += rich_terms(g, side, &fl, &doomed);
    }
    if variant == Variant::HiddenFront {
        score = quiet_discount(score, g.quiet_steps());
    }
    score
}

/// Hidden Front draws after 100 steps without combat: an advantage fades as that nears, so the
/// side ahead seeks combat in time and the side behind plays for the draw.
fn quiet_discount(score: i32, quiet: u32) -> i32 {
    const FROM: i32 = 60;
    let q = (quiet as i32).clamp(FROM, HF_QUIET_LIMIT);
    score * (HF_QUIET_LIMIT - q) / (HF_QUIET_LIMIT - FROM)
}

/// Stops a search on a deadline or a node count.
pub struct Limit {
    pub deadline: Option<Instant>,
    pub node_limit: Option<u64>,
    pub nodes: u64,
    pub stopped: bool,
}

impl Limit {
    pub fn tick(&mut self) -> bool {
        self.nodes += 1;
        if let Some(n) = self.node_limit {
            if self.nodes >= n {
                self.stopped = true;
            }
        }
        if self.nodes.is_multiple_of(16) {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stopped = true;
                }
            }
        }
        self.stopped
    }
}

/// Take the value `v` of a child into the node's best and window; whether the node is cut off.
fn cutoff(maxing: bool, v: i32, best: &mut i32, alpha: &mut i32, beta: &mut i32) -> bool {
    if maxing {
        *best = (*best).max(v);
        *alpha = (*alpha).max(v);
    } else {
        *best = (*best).min(v);
        *beta = (*beta).min(v);
    }
    *alpha >= *beta
}

pub struct Searcher<'a> {
    pub side: Side,
    pub limit: &'a mut Limit,
    pub params: SearchParams,
    bufs: Vec<Vec<(Station, Station)>>,
}

impl<'a> Searcher<'a> {
    pub fn new(side: Side, limit: &'a mut Limit, params: SearchParams) -> Self {
        Searcher { side, limit, params, bufs: Vec::new() }
    }

    fn eval(&self, g: &Game, depth: u32) -> i32 {
        evaluate_with(g, self.side, depth, self.params.rich_eval)
    }

    /// Captures only, with stand-pat for the side to move, `left` plies at most.
    fn quiesce(&mut self, g: &Game, left: u32, ply: usize, mut alpha: i32, mut beta: i32) -> i32 {
        let stand = self.eval(g, 0);
        if left == 0 || g.is_over() || self.limit.tick() {
            return stand;
        }
        let Some(seat) = g.turn() else { return stand };
        let maxing = self.side.has(seat);
        if maxing {
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
        } else {
            if stand <= alpha {
                return stand;
            }
            beta = beta.min(stand);
        }
        if self.bufs.len() <= ply {
            self.bufs.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        gen(g, &mut moves);
        moves.retain(|&(_, to)| g.piece_at(to).is_some());
        moves.sort_by_key(|&(_, to)| -g.piece_at(to).map_or(-1, |p| value(p.rank)));
        let mut best = stand;
        for &(from, to) in &moves {
            let mut child = g.clone();
            play_generated(&mut child, from, to);
            let v = self.quiesce(&child, left - 1, ply + 1, alpha, beta);
            if self.limit.stopped || cutoff(maxing, v, &mut best, &mut alpha, &mut beta) {
                break;
            }
        }
        self.bufs[ply] = moves;
        best
    }

    /// Fail-soft alpha-beta; `side` maximizes. Returns 0 once stopped (discard it).
    pub fn alphabeta(
        &mut self,
        g: &Game,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> i32 {
        if self.limit.tick() {
            return 0;
        }
        if depth == 0 && self.params.quiescence > 0 && !g.is_over() {
            return self.quiesce(g, self.params.quiescence, ply, alpha, beta);
        }
        if depth == 0 || g.is_over() {
            return self.eval(g, depth);
        }
        let Some(seat) = g.turn() else { return self.eval(g, depth) };
        if self.bufs.len() <= ply {
            self.bufs.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        gen(g, &mut moves);
        if moves.is_empty() {
            self.bufs[ply] = moves;
            return self.eval(g, depth);
        }
        // Captures first, most valuable victims first (by their sampled rank).
        moves.sort_by_key(|&(_, to)| -g.piece_at(to).map_or(-1, |p| value(p.rank)));
        let maxing = self.side.has(seat);
        let mut best = if maxing { -INF } else { INF };
        for &(from, to) in &moves {
            let mut child = g.clone();
            play_generated(&mut child, from, to);
            let v = self.alphabeta(&child, depth - 1, ply + 1, alpha, beta);
            if self.limit.stopped || cutoff(maxing, v, &mut best, &mut alpha, &mut beta) {
                break;
            }
        }
        self.bufs[ply] = moves;
        if best.abs() == INF {
            return self.eval(g, depth);
        }
        best
    }
}
