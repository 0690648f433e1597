//! `siguo-tools selfplay`: a bot-against-bot tournament, of either game (`--variant`).
//!
//! Games come in pairs that reuse the same deployments with the sides swapped (four-player: bot A
//! plays North+South in the first game of a pair and East+West in the second; Hidden Front: A
//! plays South, who moves first, then North), so that neither side profits from a lucky
//! deployment or from moving first. Every seat gets its own bot instance (four-dark play: allies
//! do not share knowledge), fed only its seat's view and the public events. Work is spread over
//! std threads, one pair at a time.
//!
//! A side may be an external program speaking the engine protocol (`--a-engine`, docs/engine.md):
//! one process per seat and game (in the first game of a pair it deploys its seat; in the second
//! `new_game` sends it the deployment it plays, made in the first: either way it knows its pieces
//! before any event), fed the same views and public events as a built-in bot; seeds it is sent are
//! at most 2^53 − 1. An engine that answers illegally, crashes or overruns its budget by more than
//! the margin forfeits the game.
use crate::engine_client::{Deploy, EngineProc, Fault, Reply};
use siguo_bots::engine_protocol::{Go, LiveEvent, WireEvent};
use siguo_bots::{make_bot, Bot, Level};
use siguo_rules::{
    Action, Deployment, ElimReason, Game, Options, Seat, SeatSet, Status, Team, Variant, Viewer,
};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug, Clone)]
pub struct SelfplayArgs {
    /// The game: four_player (also siguo) or hidden_front.
    #[arg(long, default_value = "four_player", value_parser = parse_variant)]
    pub variant: Variant,
    /// Level of bot A (random, greedy, standard, standard-v1).
    #[arg(long, default_value = "standard")]
    pub a: Level,
    /// Side A is this external engine command (docs/engine.md) instead of a built-in bot,
    /// e.g. "siguo engine --bot standard".
    #[arg(long)]
    pub a_engine: Option<String>,
    /// Side B is this external engine command.
    #[arg(long)]
    pub b_engine: Option<String>,
    /// An engine that has not answered a `go` after its budget plus this margin forfeits.
    #[arg(long, default_value_t = 250)]
    pub engine_margin_ms: u64,
    /// Level of bot B.
    #[arg(long, default_value = "greedy")]
    pub b: Level,
    /// Number of games (rounded up to an even number: games come in pairs).
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Seed of the whole tournament (deployments and bots).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: every core).
    #[arg(long, visible_alias = "jobs")]
    pub threads: Option<usize>,
    /// Thinking time per move of both bots, in milliseconds (capped at 2000).
    #[arg(long, default_value_t = 1000)]
    pub budget_ms: u64,
    /// Thinking time of bot A only (overrides --budget-ms).
    #[arg(long)]
    pub budget_a_ms: Option<u64>,
    /// Thinking time of bot B only (overrides --budget-ms).
    #[arg(long)]
    pub budget_b_ms: Option<u64>,
    /// Room options as JSON, e.g. '{"info_mode":"double_open","max_steps":300}'; missing fields
    /// take the defaults of the game (Hidden Front: mines = mutual).
    #[arg(long)]
    pub options: Option<String>,
    /// Print a progress line every this many games (0: never).
    #[arg(long, default_value_t = 0)]
    pub progress: usize,
    /// Stop starting new pairs after this many minutes (pairs already started are finished and
    /// counted; the report says how many games were played). Default: no limit.
    #[arg(long)]
    pub max_minutes: Option<f64>,
}

fn parse_variant(s: &str) -> Result<Variant, String> {
    serde_json::from_value(serde_json::Value::String(s.into()))
        .map_err(|_| format!("unknown game {s:?} (four_player, hidden_front)"))
}

/// Which seats bot A plays in one game: the first half of the table (four-player: North+South;
/// Hidden Front: South) or the second.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sides {
    variant: Variant,
    a_first: bool,
}

impl Sides {
    /// Whether `seat` belongs to the first half (the one A deploys for the pair).
    fn first_half(variant: Variant, seat: Seat) -> bool {
        match variant {
            Variant::FourPlayer => seat.team() == Team::NS,
            Variant::HiddenFront => seat == Seat::S,
        }
    }
    /// Whether bot A plays `seat`.
    fn is_a(self, seat: Seat) -> bool {
        Sides::first_half(self.variant, seat) == self.a_first
    }
}

/// One finished (or crashed) game, from bot A's side.
#[derive(Clone)]
struct GameResult {
    /// 1.0 win, 0.5 draw, 0.0 loss for A; `None` when the game crashed.
    score: Option<f64>,
    ending: String,
    steps: u32,
    illegal: usize,
    times_a: Vec<u32>,
    times_b: Vec<u32>,
    pair: usize,
    /// Which side forfeited, and why.
    forfeit: Option<(char, String)>,
}

impl GameResult {
    fn new(pair: usize) -> GameResult {
        GameResult {
            score: None,
            ending: String::new(),
            steps: 0,
            illegal: 0,
            times_a: Vec::new(),
            times_b: Vec::new(),
            pair,
            forfeit: None,
        }
    }

    /// The game is lost by the side `a_side` (true: A) for `fault`.
    fn forfeited(mut self, a_side: bool, seat: Seat, fault: &Fault) -> GameResult {
        self.score = Some(if a_side { 0.0 } else { 1.0 });
        let kind = match fault {
            Fault::Crashed(_) => "crashed",
            Fault::TooSlow { .. } => "over budget",
            Fault::BadAnswer(_) => "illegal answer",
        };
        self.ending = format!("forfeit: {kind}");
        let name = if a_side { 'A' } else { 'B' };
        self.forfeit = Some((name, format!("{name} at {seat:?}: {fault}")));
        self
    }
}

fn mix(seed: u64, k: u64) -> u64 {
    // splitmix64 of (seed, k)
    let mut z = seed ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(0x6A09_E667_F3BC_C908);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

struct Side {
    level: Level,
    budget: Duration,
    /// An external engine command instead of the built-in bot.
    engine: Option<String>,
    margin: Duration,
}

impl Side {
    fn name(&self) -> String {
        match &self.engine {
            Some(cmd) => format!("engine {cmd:?}"),
            None => self.level.name().to_string(),
        }
    }

    /// How long starting an engine and its `new_game` may take.
    fn setup_timeout(&self) -> Duration {
        Duration::from_secs(10) + self.budget
    }
}

/// Who plays a seat.
enum Player {
    Bot(Box<dyn Bot>),
    Engine(EngineProc),
}

impl Player {
    fn observe(&mut self, e: &WireEvent) -> Result<(), Fault> {
        match self {
            Player::Bot(b) => {
                if let WireEvent::Game(e) = e {
                    b.observe(e);
                }
                Ok(())
            }
            Player::Engine(p) => p.event(e.clone()),
        }
    }
}

/// The game's setting: which game and its options.
#[derive(Clone, Copy, Debug)]
struct Table {
    variant: Variant,
    options: Options,
}

/// Start an engine for `seat` and send it `new_game` (with [`Deploy::Ask`]: its deployment,
/// checked).
fn start_engine(
    cmd: &str,
    side: &Side,
    table: &Table,
    seat: Seat,
    deploy: Deploy,
    seed: u64,
) -> Result<(EngineProc, Option<Deployment>), Fault> {
    let mut p = EngineProc::start(cmd, side.setup_timeout())?;
    let d = p.new_game(table.variant, &table.options, seat, deploy, seed, side.setup_timeout())?;
    if let Some(d) = &d {
        d.validate_for(table.variant, &table.options)
            .map_err(|e| Fault::BadAnswer(format!("deployment: {e}")))?;
    }
    Ok((p, d))
}

/// The players of a game, by seat index (`None` for a seat that does not play).
type Players = Vec<Option<Player>>;

/// Feed events to every player; the first engine that fails forfeits.
fn feed(players: &mut Players, events: Vec<WireEvent>, sides: Sides) -> Result<(), Forfeit> {
    for e in &events {
        for (i, p) in players.iter_mut().enumerate() {
            let Some(p) = p else { continue };
            let seat = Seat::from_index(i);
            p.observe(e).map_err(|f| (sides.is_a(seat), seat, f))?;
        }
    }
    Ok(())
}

/// A side lost by an engine's fault: (the side: A?, the seat, the fault).
type Forfeit = (bool, Seat, Fault);

/// Play one game. `sides` says which seats bot A plays. With `given` (the second game of a pair)
/// those deployments are played, and each engine is sent its seat's one in `new_game`; without,
/// the player of each seat deploys it (an engine in the process that then plays the game).
/// Returns the result from A's side, and the deployments once every seat has one.
fn play_game(
    table: &Table,
    given: Option<&[Deployment]>,
    a: &Side,
    b: &Side,
    sides: Sides,
    seed: u64,
    pair: usize,
) -> (GameResult, Option<Vec<Deployment>>) {
    let res = GameResult::new(pair);
    let mut players: Players = (0..4).map(|_| None).collect();
    let mut deployments = Vec::new();
    for &s in table.variant.seats() {
        let side = if sides.is_a(s) { a } else { b };
        let bseed = mix(seed, s.index() as u64);
        let theirs = given.map(|g| g.iter().find(|d| d.seat == s).expect("a deployment per seat"));
        let (player, deployment) = match &side.engine {
            None => {
                let mut bot = make_bot(side.level, bseed, side.budget);
                let d = theirs
                    .cloned()
                    .unwrap_or_else(|| bot.deploy_for(table.variant, s, &table.options));
                (Player::Bot(bot), d)
            }
            Some(cmd) => {
                let deploy = theirs.map_or(Deploy::Ask, Deploy::Given);
                match start_engine(cmd, side, table, s, deploy, bseed) {
                    Ok((p, d)) => {
                        let d = d.or_else(|| theirs.cloned()).expect("asked or given");
                        (Player::Engine(p), d)
                    }
                    Err(f) => return (res.forfeited(sides.is_a(s), s, &f), None),
                }
            }
        };
        players[s.index()] = Some(player);
        deployments.push(deployment);
    }
    let mut game = match Game::start(table.variant, table.options, &deployments) {
        Ok(g) => g,
        Err(e) => {
            let mut res = res;
            res.ending = format!("bad deployment: {e}");
            return (res, None);
        }
    };
    let mut res = res;
    let res = match play_battle(&mut game, &mut players, a, b, sides, seed, &mut res) {
        Ok(()) => finish(&game, sides, res),
        Err((is_a, seat, f)) => res.forfeited(is_a, seat, &f),
    };
    (res, Some(deployments))
}

/// A pending draw offer goes to the built-in bots of the other side, who accept or refuse it
/// (engines have no request for it: their offers lapse). The events of the answers.
fn answer_offer(game: &mut Game, players: &mut Players) -> Vec<WireEvent> {
    let Some((offerer, accepted)) = game.draw_offer() else { return Vec::new() };
    let mut events = Vec::new();
    for &seat in game.variant().seats() {
        if seat == offerer || accepted.contains(&seat) || !game.in_play(seat) {
            continue;
        }
        let Some(Some(Player::Bot(bot))) = players.get_mut(seat.index()) else { continue };
        let view = game.view(Viewer::Seats(SeatSet::one(seat)));
        let action = if bot.accept_draw(&view) {
            Action::AcceptDraw { seat }
        } else {
            Action::DeclineDraw { seat }
        };
        events.extend(game.apply(&action).unwrap_or_default().into_iter().map(WireEvent::from));
        if game.draw_offer().is_none() {
            break;
        }
    }
    events
}

/// The battle; `Err` when an engine forfeited.
fn play_battle(
    game: &mut Game,
    players: &mut Players,
    a: &Side,
    b: &Side,
    sides: Sides,
    seed: u64,
    res: &mut GameResult,
) -> Result<(), Forfeit> {
    let mut first: Vec<WireEvent> = vec![LiveEvent::BattleStarted.into()];
    first.extend(game.initial_events().into_iter().map(WireEvent::from));
    feed(players, first, sides)?;
    let mut fallback = rand_chacha::ChaCha8Rng::seed_from_u64(mix(seed, 99));
    use rand::{Rng, SeedableRng};
    while let Some(seat) = game.turn() {
        let moves = game.legal_moves();
        let is_a = sides.is_a(seat);
        let side = if is_a { a } else { b };
        let events = if moves.is_empty() {
            game.apply(&Action::Timeout).expect("a timeout is always accepted")
        } else {
            let t0 = Instant::now();
            let player = players[seat.index()].as_mut().expect("a player for every seat");
            let action = match player {
                Player::Bot(bot) => {
                    let view = game.view(Viewer::Seats(SeatSet::one(seat)));
                    let m = bot.choose(&view, &moves);
                    if moves.contains(&m) {
                        Action::Move { from: m.from, to: m.to }
                    } else {
                        res.illegal += 1;
                        let m = &moves[fallback.random_range(0..moves.len())];
                        Action::Move { from: m.from, to: m.to }
                    }
                }
                Player::Engine(p) => match engine_turn(p, game, seat, side, &moves) {
                    Ok((action, offer)) => {
                        if let Some(ev) = offer {
                            let mut ev: Vec<WireEvent> =
                                ev.into_iter().map(WireEvent::from).collect();
                            ev.extend(answer_offer(game, players));
                            feed(players, ev, sides)?;
                        }
                        action
                    }
                    Err(f) => return Err((is_a, seat, f)),
                },
            };
            if game.is_over() {
                // A draw offer was accepted.
                break;
            }
            let micros = t0.elapsed().as_micros().min(u32::MAX as u128) as u32;
            if is_a { &mut res.times_a } else { &mut res.times_b }.push(micros);
            game.apply(&action).expect("a checked action applies")
        };
        let events = events.into_iter().map(WireEvent::from).collect();
        feed(players, events, sides)?;
    }
    Ok(())
}

/// One turn of an engine: its checked action, and the events of a draw offer made first.
fn engine_turn(
    p: &mut EngineProc,
    game: &mut Game,
    seat: Seat,
    side: &Side,
    moves: &[siguo_rules::Move],
) -> Result<(Action, Option<Vec<siguo_rules::Event>>), Fault> {
    let budget_ms = side.budget.as_millis() as u64;
    let mut offer = None;
    loop {
        let go = Go::for_seats(game, SeatSet::one(seat), budget_ms, None);
        match p.go(go, side.margin)? {
            Reply::Move { from, to } => {
                if !moves.iter().any(|m| m.from == from && m.to == to) {
                    return Err(Fault::BadAnswer(format!("illegal move {from}-{to}")));
                }
                return Ok((Action::Move { from, to }, offer));
            }
            Reply::Surrender => return Ok((Action::Surrender { seat }, offer)),
            Reply::Draw if offer.is_none() => {
                // Offer if the rules allow it now (else the offer is ignored); then ask again.
                offer = Some(game.apply(&Action::OfferDraw { seat }).unwrap_or_default());
            }
            Reply::Draw => return Err(Fault::BadAnswer("a second draw in one turn".into())),
        }
    }
}

/// The result of a finished game, from A's side.
fn finish(game: &Game, sides: Sides, mut res: GameResult) -> GameResult {
    res.steps = game.steps();
    match game.status() {
        Status::Won { winner, .. } => {
            res.score = Some(if sides.is_a(winner.seats()[0]) { 1.0 } else { 0.0 });
            let mut reasons: Vec<&str> = winner
                .other()
                .seats()
                .iter()
                .map(|&s| match game.elimination(s) {
                    Some(ElimReason::FlagCaptured) => "flag captured",
                    Some(ElimReason::NoLegalMove) => "no legal move",
                    Some(ElimReason::Surrendered) => "surrendered",
                    Some(ElimReason::TooManySkips) => "too many skips",
                    None => "?",
                })
                .collect();
            reasons.sort();
            res.ending = format!("win: {}", reasons.join(" + "));
        }
        Status::SeatWon { winner, reason } => {
            res.score = Some(if sides.is_a(winner) { 1.0 } else { 0.0 });
            res.ending = format!("win: {}", reason.code());
        }
        Status::Draw { reason } => {
            res.score = Some(0.5);
            res.ending = format!(
                "draw: {}",
                match reason {
                    siguo_rules::DrawReason::StepLimit => "step limit",
                    siguo_rules::DrawReason::Agreement => "agreement",
                    siguo_rules::DrawReason::NoCombat => "no combat",
                }
            );
        }
        Status::Ongoing => res.ending = "unfinished".into(),
    }
    res
}

/// Both games of pair `k`: in the first, every seat's player deploys it (A the first half);
/// the second replays those deployments with the sides swapped.
fn play_pair(table: &Table, a: &Side, b: &Side, seed: u64, k: usize) -> [GameResult; 2] {
    let pseed = mix(seed, k as u64);
    let sides = |a_first: bool| Sides { variant: table.variant, a_first };
    let run = |a_first: bool, gseed: u64, given: Option<&[Deployment]>| {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            play_game(table, given, a, b, sides(a_first), gseed, k)
        }));
        r.unwrap_or_else(|_| (GameResult { ending: "crash".into(), ..GameResult::new(k) }, None))
    };
    let (first, deployments) = run(true, mix(pseed, 1), None);
    let second = match (&deployments, &first.forfeit) {
        (Some(d), _) => run(false, mix(pseed, 2), Some(d)).0,
        // Without the first game's deployments the second cannot be played: the side whose
        // engine failed to start or to deploy forfeits both games of the pair.
        (None, Some(_)) => GameResult { pair: k, ..first.clone() },
        (None, None) => GameResult { ending: first.ending.clone(), ..GameResult::new(k) },
    };
    [first, second]
}

/// The mean of times in microseconds, in milliseconds (0 for none).
fn mean_ms(times: &[u32]) -> f64 {
    let sum: u64 = times.iter().map(|&t| t as u64).sum();
    sum as f64 / times.len().max(1) as f64 / 1000.0
}

fn percentile(sorted: &[u32], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

pub fn run(args: SelfplayArgs) -> i32 {
    let given = match args.options.as_deref().map(serde_json::from_str) {
        None => None,
        Some(Ok(v)) => Some(v),
        Some(Err(e)) => {
            eprintln!("error: --options: {e}");
            return 2;
        }
    };
    let options = match Options::from_json_for(args.variant, given) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: --options: {e}");
            return 2;
        }
    };
    if let Err(e) = options.validate() {
        eprintln!("error: --options: {e}");
        return 2;
    }
    if args.games == 0 {
        eprintln!("error: --games must be at least 1");
        return 2;
    }
    let cap = siguo_bots::MAX_BUDGET.as_millis() as u64;
    let margin = Duration::from_millis(args.engine_margin_ms);
    let a = Side {
        level: args.a,
        budget: Duration::from_millis(args.budget_a_ms.unwrap_or(args.budget_ms).min(cap)),
        engine: args.a_engine.clone(),
        margin,
    };
    let b = Side {
        level: args.b,
        budget: Duration::from_millis(args.budget_b_ms.unwrap_or(args.budget_ms).min(cap)),
        engine: args.b_engine.clone(),
        margin,
    };
    let pairs = args.games.div_ceil(2);
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, pairs);
    println!(
        "selfplay: {}: A = {} ({} ms) vs B = {} ({} ms), {} games ({} pairs, sides swapped, deployments reused), seed {}, {} threads",
        args.variant.name(),
        a.name(),
        a.budget.as_millis(),
        b.name(),
        b.budget.as_millis(),
        pairs * 2,
        pairs,
        args.seed,
        threads
    );
    let started = Instant::now();
    let deadline = args.max_minutes.map(|m| started + Duration::from_secs_f64(m.max(0.0) * 60.0));
    let next = Arc::new(AtomicUsize::new(0));
    let (tx, rx) = mpsc::channel::<GameResult>();
    let shared = Arc::new((Table { variant: args.variant, options }, a, b));
    let mut handles = Vec::new();
    for _ in 0..threads {
        let (next, tx, shared) = (next.clone(), tx.clone(), shared.clone());
        let seed = args.seed;
        handles.push(std::thread::spawn(move || loop {
            if deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            let k = next.fetch_add(1, Ordering::SeqCst);
            if k >= pairs {
                break;
            }
            let (table, a, b) = &*shared;
            for r in play_pair(table, a, b, seed, k) {
                if tx.send(r).is_err() {
                    return;
                }
            }
        }));
    }
    drop(tx);
    let mut results = Vec::new();
    for r in rx {
        results.push(r);
        if args.progress > 0 && results.len() % args.progress == 0 {
            let s: f64 = results.iter().filter_map(|r| r.score).sum();
            eprintln!("  {} games, A score so far {:.3}", results.len(), s / results.len() as f64);
        }
    }
    for h in handles {
        let _ = h.join();
    }
    let (a, b) = (&shared.1, &shared.2);
    let played: Vec<&GameResult> = results.iter().filter(|r| r.score.is_some()).collect();
    let wins = played.iter().filter(|r| r.score == Some(1.0)).count();
    let draws = played.iter().filter(|r| r.score == Some(0.5)).count();
    let losses = played.iter().filter(|r| r.score == Some(0.0)).count();
    let crashes = results.len() - played.len();
    let n = played.len().max(1) as f64;
    let score = played.iter().filter_map(|r| r.score).sum::<f64>() / n;
    // 95% confidence interval from the spread of pair means (the two games of a pair share deployments).
    let mut by_pair: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
    for r in &played {
        by_pair.entry(r.pair).or_default().push(r.score.unwrap_or(0.0));
    }
    let means: Vec<f64> =
        by_pair.values().map(|v| v.iter().sum::<f64>() / v.len() as f64).collect();
    let m = means.iter().sum::<f64>() / means.len().max(1) as f64;
    let var = if means.len() > 1 {
        means.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (means.len() - 1) as f64
    } else {
        0.0
    };
    let ci = 1.96 * (var / means.len().max(1) as f64).sqrt();
    let illegal: usize = results.iter().map(|r| r.illegal).sum();
    println!("A ({}) against B ({}): W {} D {} L {}", a.name(), b.name(), wins, draws, losses);
    println!("score of A: {:.3} ± {:.3} (95% CI, {} games)", score, ci, played.len());
    let mut endings: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    for r in &played {
        let e = endings.entry(r.ending.clone()).or_default();
        let by = if r.score == Some(0.0) { 1 } else { 0 };
        e[by] += 1;
    }
    println!("how games ended (won by A / by B for wins):");
    for (k, v) in &endings {
        if k.starts_with("draw") {
            println!("  {k}: {}", v[0]);
        } else {
            println!("  {k}: {} / {}", v[0], v[1]);
        }
    }
    let mean_steps = played.iter().map(|r| r.steps as f64).sum::<f64>() / n;
    println!("mean battle steps per game: {mean_steps:.1}");
    println!("illegal moves: {illegal}");
    println!("crashes: {crashes}");
    let forfeits: Vec<&(char, String)> =
        results.iter().filter_map(|r| r.forfeit.as_ref()).collect();
    for side in ['A', 'B'] {
        let n = forfeits.iter().filter(|f| f.0 == side).count();
        println!("forfeits by {side}: {n}");
    }
    for (r, f) in results.iter().filter_map(|r| r.forfeit.as_ref().map(|f| (r, f))) {
        println!("  forfeit, pair {}: {}", r.pair, f.1);
    }
    for (name, side, times) in [
        ("A", a, results.iter().flat_map(|r| r.times_a.iter().copied()).collect::<Vec<u32>>()),
        ("B", b, results.iter().flat_map(|r| r.times_b.iter().copied()).collect::<Vec<u32>>()),
    ] {
        let mut t = times;
        t.sort_unstable();
        println!(
            "time per move, {name} ({}): mean {:.2} ms, p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms over {} moves",
            side.name(),
            mean_ms(&t),
            percentile(&t, 0.5),
            percentile(&t, 0.99),
            percentile(&t, 1.0),
            t.len()
        );
    }
    println!("elapsed: {:.1} s", started.elapsed().as_secs_f64());
    if results.len() < pairs * 2 {
        println!(
            "stopped by --max-minutes: {} of {} games played (whole pairs only)",
            results.len(),
            pairs * 2
        );
    }
    if illegal > 0 || crashes > 0 || !forfeits.is_empty() {
        1
    } else {
        0
    }
}
