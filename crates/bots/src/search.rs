//! Alpha-beta over a game whose hidden ranks were filled in by a sample (allies on one side),
//! with an evaluation in hundredths of a pawn-ish unit.
use crate::geo;
use siguo_rules::{FlagCapture, Game, Piece, Rank, Seat, Station, Status, Team};
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
    for seat in Seat::ALL {
        for hq in geo::headquarters(seat) {
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
    flag.neighbours().iter().any(|&nb| {
        !nb.is_headquarters()
            && g.piece_at(nb)
                .is_some_and(|p| p.owner.team() != owner.team() && can_take_flag(p.rank, fc))
    })
}

/// Static evaluation for `team` (positive is good for it).
pub fn evaluate(g: &Game, team: Team, depth_left: u32) -> i32 {
    match g.status() {
        Status::Won { winner, .. } => {
            let v = WIN + depth_left as i32;
            return if winner == team { v } else { -v };
        }
        Status::SeatWon { winner, .. } => {
            let v = WIN + depth_left as i32;
            return if winner.team() == team { v } else { -v };
        }
        Status::Draw { .. } => return 0,
        Status::Ongoing => {}
    }
    let fl = flags(g);
    let mut score = 0;
    for st in Station::all() {
        let Some(p) = g.piece_at(st) else { continue };
        let mut v = value(p.rank);
        if p.rank.is_movable() && !st.is_headquarters() {
            let mut d = 12;
            for e in Seat::ALL {
                if e.team() != p.owner.team() {
                    if let Some(f) = fl[e.index()] {
                        d = d.min(geo::dist(st, f) as i32);
                    }
                }
            }
            v += ADV * (12 - d.min(12));
        }
        score += if p.owner.team() == team { v } else { -v };
    }
    for seat in Seat::ALL {
        let sign = if seat.team() == team { -1 } else { 1 };
        if g.is_eliminated(seat) {
            score += sign * ELIM;
        } else if let Some(f) = fl[seat.index()] {
            if flag_threatened(g, seat, f) {
                score += sign * THREAT;
            }
        }
    }
    score
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

pub struct Searcher<'a> {
    pub team: Team,
    pub limit: &'a mut Limit,
    bufs: Vec<Vec<(Station, Station)>>,
}

impl<'a> Searcher<'a> {
    pub fn new(team: Team, limit: &'a mut Limit) -> Self {
        Searcher { team, limit, bufs: Vec::new() }
    }

    /// Fail-soft alpha-beta; the side of `team` maximizes. Returns 0 once stopped (discard it).
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
        if depth == 0 || g.is_over() {
            return evaluate(g, self.team, depth);
        }
        let Some(seat) = g.turn() else { return evaluate(g, self.team, depth) };
        if self.bufs.len() <= ply {
            self.bufs.resize_with(ply + 1, Vec::new);
        }
        let mut moves = std::mem::take(&mut self.bufs[ply]);
        gen(g, &mut moves);
        if moves.is_empty() {
            self.bufs[ply] = moves;
            return evaluate(g, self.team, depth);
        }
        // Captures first, most valuable victims first (by their sampled rank).
        moves.sort_by_key(|&(_, to)| -g.piece_at(to).map_or(-1, |p| value(p.rank)));
        let maxing = seat.team() == self.team;
        let mut best = if maxing { -INF } else { INF };
        for &(from, to) in &moves {
            let mut child = g.clone();
            play_generated(&mut child, from, to);
            let v = self.alphabeta(&child, depth - 1, ply + 1, alpha, beta);
            if self.limit.stopped {
                break;
            }
            if maxing {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        self.bufs[ply] = moves;
        if best.abs() == INF {
            return evaluate(g, self.team, depth);
        }
        best
    }
}
