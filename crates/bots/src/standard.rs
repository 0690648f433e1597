//! The `standard` bot: public bookkeeping, sampled identities, alpha-beta in each sample,
//! values averaged over samples, within an anytime budget.
use crate::engine_protocol::Info;
use crate::knowledge::{bit, Knowledge, MOVABLE};
use crate::search::{can_take_flag, play, Limit, SearchParams, Searcher, Side, INF, WIN};
use crate::{deploy, geo, Bot};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use siguo_rules::{Deployment, Event, Game, Move, Options, Position, Rank, Seat, Variant, View};
use std::time::{Duration, Instant};

/// Deepest search tried (plies: my move, then the following seats).
const MAX_DEPTH: u32 = 4;
/// A root move worse than the best one so far by this much is only bounded, not valued exactly.
const MARGIN: i32 = 2_000;
/// Samples averaged to judge a draw offer.
const DRAW_SAMPLES: usize = 12;
/// Accept a draw when the position is judged worse than this for us (about a division).
const ACCEPT_DRAW_BELOW: f64 = -600.0;

/// What distinguishes the versions of the standard bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Params {
    search: SearchParams,
    /// Samples weighted by observed behaviour ([`Knowledge::behaviour`]).
    weighted_samples: bool,
    /// Spend more of the budget on critical turns, less on quiet ones (else always 75%).
    time_management: bool,
}

impl Params {
    const V1: Params =
        Params { search: SearchParams::V1, weighted_samples: false, time_management: false };
    const V2: Params =
        Params { search: SearchParams::V2, weighted_samples: true, time_management: true };
}

pub struct StandardBot {
    rng: ChaCha8Rng,
    budget: Duration,
    node_limit: Option<u64>,
    know: Knowledge,
    params: Params,
    info: Option<Info>,
    /// The seat this bot plays, once known (from its deployment or its first move).
    seat: Option<Seat>,
}

impl StandardBot {
    /// The current standard bot.
    pub fn new(seed: u64, budget: Duration, node_limit: Option<u64>) -> StandardBot {
        StandardBot::with(seed, budget, node_limit, Params::V2)
    }

    /// The first version (`standard-v1`): material + progress, no quiescence, flat samples.
    pub fn v1(seed: u64, budget: Duration, node_limit: Option<u64>) -> StandardBot {
        StandardBot::with(seed, budget, node_limit, Params::V1)
    }

    fn with(seed: u64, budget: Duration, node_limit: Option<u64>, params: Params) -> StandardBot {
        StandardBot {
            rng: ChaCha8Rng::seed_from_u64(seed),
            budget,
            node_limit,
            know: Knowledge::new(),
            params,
            info: None,
            seat: None,
        }
    }

    /// A position of the game with the hidden ranks drawn from the knowledge (`None` if the
    /// sample does not make a position).
    fn sample_game(&mut self, view: &View, doms: &[u16], turn: Seat) -> Option<Game> {
        let weighted = self.params.weighted_samples;
        let pieces = self.know.sample(doms, &view.options, weighted, &mut self.rng);
        let pos = Position {
            variant: view.variant,
            turn,
            pieces,
            options: view.options,
            eliminated: view.eliminated.clone(),
            skips: view.skips.clone(),
            steps: view.steps,
            quiet_steps: view.quiet_steps,
        };
        Game::from_position(&pos).ok()
    }

    /// Our seat in `view`: the one we know, else the owner of a piece whose rank we see (not a
    /// flag: a revealed flag may be the enemy's).
    fn my_seat(&self, view: &View) -> Option<Seat> {
        self.seat.or_else(|| {
            view.pieces
                .values()
                .find(|p| p.rank().is_some_and(|r| r != Rank::Flag))
                .map(|p| p.owner())
        })
    }

    /// How good the position in `view` is for `me`, averaged over sampled identities (search
    /// units).
    fn judge(&mut self, view: &View, me: Seat) -> f64 {
        self.know.sync(view);
        let doms = self.know.domains(&view.options, &view.flags_revealed);
        let side = Side::new(view.variant, me);
        let turn = view.turn.unwrap_or(me);
        let rich = self.params.search.rich_eval;
        let vals: Vec<i32> = (0..DRAW_SAMPLES)
            .filter_map(|_| self.sample_game(view, &doms, turn))
            .map(|g| crate::search::evaluate_with(&g, side, 0, rich))
            .collect();
        vals.iter().map(|&v| v as f64).sum::<f64>() / vals.len().max(1) as f64
    }

    /// The share of the budget to search for: more when a capture is possible or our flag is
    /// threatened, less when there is little to choose from.
    fn time_share(&self, view: &View, cands: &[&Move], threatened: bool) -> f64 {
        if !self.params.time_management {
            return 0.75;
        }
        let capture = cands.iter().any(|m| view.pieces.contains_key(&m.to));
        if threatened || capture {
            0.85
        } else if cands.len() <= 4 {
            0.4
        } else {
            0.65
        }
    }
}

/// Moves that must be played (a sure flag capture), or the only moves worth searching (captures of
/// pieces that threaten our own flag). `doms` are the knowledge domains.
fn forced<'m>(
    know: &Knowledge,
    doms: &[u16],
    view: &View,
    me: Seat,
    moves: &'m [Move],
) -> Option<Vec<&'m Move>> {
    let side = Side::new(view.variant, me);
    // A sure flag capture wins a seat (Hidden Front: the game): always take it.
    if let Some(m) = moves.iter().find(|m| {
        know.id_at(m.to).is_some_and(|id| !side.has(know.owner(id)) && doms[id] == bit(Rank::Flag))
    }) {
        return Some(vec![m]);
    }
    // Our side's flags we know for sure, and enemy pieces next to them that could take them.
    let fc = view.options.flag_capture;
    let mut threats = Vec::new();
    for seat in geo::own_side(view.variant, me) {
        for hq in geo::headquarters(view.variant, seat) {
            let Some(id) = know.id_at(hq) else { continue };
            if know.owner(id) != seat || doms[id] != bit(Rank::Flag) {
                continue;
            }
            for &nb in hq.neighbours() {
                if nb.is_headquarters() {
                    continue;
                }
                if let Some(e) = know.id_at(nb) {
                    let can =
                        crate::knowledge::ranks(doms[e] & MOVABLE).any(|r| can_take_flag(r, fc));
                    if !side.has(know.owner(e)) && can {
                        threats.push(nb);
                    }
                }
            }
        }
    }
    if threats.is_empty() {
        return None;
    }
    let answers: Vec<&Move> = moves.iter().filter(|m| threats.contains(&m.to)).collect();
    (!answers.is_empty()).then_some(answers)
}

impl Bot for StandardBot {
    fn deploy_for(&mut self, variant: Variant, seat: Seat, options: &Options) -> Deployment {
        self.seat = Some(seat);
        deploy::sensible(variant, seat, options, &mut self.rng)
    }

    /// Accept when clearly behind; refuse an even or better game.
    fn accept_draw(&mut self, view: &View) -> bool {
        let Some(me) = self.my_seat(view) else { return false };
        self.judge(view, me) < ACCEPT_DRAW_BELOW
    }

    fn observe(&mut self, event: &Event) {
        self.know.observe(event);
    }

    fn set_budget(&mut self, budget: Duration) {
        self.budget = budget.min(crate::MAX_BUDGET);
    }

    fn info(&self) -> Option<Info> {
        self.info.clone()
    }

    fn choose(&mut self, view: &View, moves: &[Move]) -> Move {
        let start = Instant::now();
        self.info = None;
        assert!(!moves.is_empty(), "choose() needs at least one legal move");
        self.know.sync(view);
        if moves.len() == 1 {
            return moves[0].clone();
        }
        let me = view
            .turn
            .or_else(|| view.pieces.get(&moves[0].from).map(|p| p.owner()))
            .unwrap_or(siguo_rules::Seat::N);
        self.seat = Some(me);
        let side = Side::new(view.variant, me);
        let doms = self.know.domains(&view.options, &view.flags_revealed);
        let (cands, threatened): (Vec<&Move>, bool) =
            match forced(&self.know, &doms, view, me, moves) {
                Some(c) if c.len() == 1 => return c[0].clone(),
                Some(c) => (c, true),
                None => (moves.iter().collect(), false),
            };
        let budget = self.budget.min(crate::MAX_BUDGET);
        let share = self.time_share(view, &cands, threatened);
        let mut limit = Limit {
            deadline: self.node_limit.is_none().then(|| start + budget.mul_f64(share)),
            node_limit: self.node_limit,
            nodes: 0,
            stopped: false,
        };
        let mut searcher = Searcher::new(side, &mut limit, self.params.search);
        let mut samples: Vec<Game> = Vec::new();
        let mut result: Option<Vec<f64>> = None;
        let mut result_depth = 0;
        let prep = start.elapsed();
        for depth in 1..=MAX_DEPTH {
            let target = match depth {
                1 => 8,
                2 => 24,
                3 => 48,
                _ => usize::MAX,
            };
            let mut sums = vec![0f64; cands.len()];
            let mut n = 0;
            while n < target {
                if n >= samples.len() {
                    if searcher.limit.deadline.is_some_and(|d| Instant::now() >= d) {
                        searcher.limit.stopped = true;
                        break;
                    }
                    match self.sample_game(view, &doms, me) {
                        Some(g) => samples.push(g),
                        None => break,
                    }
                }
                // The first one-ply sample always completes, so there is always an answer.
                let saved_deadline = searcher.limit.deadline;
                if depth == 1 && n == 0 {
                    searcher.limit.deadline = None;
                }
                let g = &samples[n];
                let mut vals = vec![-WIN; cands.len()];
                let mut best = -INF;
                for (i, m) in cands.iter().enumerate() {
                    let mut child = g.clone();
                    if !play(&mut child, m.from, m.to) {
                        continue;
                    }
                    let alpha = if best == -INF { -INF } else { best - MARGIN };
                    let v = searcher.alphabeta(&child, depth - 1, 1, alpha, INF);
                    if searcher.limit.stopped {
                        break;
                    }
                    vals[i] = v;
                    best = best.max(v);
                }
                searcher.limit.deadline = saved_deadline;
                if searcher.limit.stopped {
                    break;
                }
                for (s, v) in sums.iter_mut().zip(&vals) {
                    *s += *v as f64;
                }
                n += 1;
            }
            let enough = if depth == 1 { n >= 1 } else { n >= 4 };
            if enough {
                result = Some(sums.iter().map(|s| s / n as f64).collect());
                result_depth = depth;
            }
            if searcher.limit.stopped || samples.is_empty() {
                break;
            }
        }
        if std::env::var_os("SIGUO_BOT_DEBUG").is_some() {
            eprintln!(
                "standard: {} moves, {} samples, depth reached {}, {} nodes, prep {:?}, total {:?}",
                cands.len(),
                samples.len(),
                result_depth,
                searcher.limit.nodes,
                prep,
                start.elapsed()
            );
        }
        self.info = Some(Info {
            depth: Some(result_depth),
            samples: Some(samples.len() as u32),
            nodes: Some(searcher.limit.nodes),
            ..Info::default()
        });
        let Some(avg) = result else {
            return cands[self.rng.random_range(0..cands.len())].clone();
        };
        let mut best_i = 0;
        let mut best_v = f64::NEG_INFINITY;
        for (i, v) in avg.iter().enumerate() {
            let v = v + self.rng.random::<f64>();
            if v > best_v {
                best_v = v;
                best_i = i;
            }
        }
        if let Some(info) = &mut self.info {
            info.score = Some((avg[best_i] * 10.0).round() / 10.0);
            info.pv = vec![cands[best_i].notation()];
        }
        cands[best_i].clone()
    }
}
