//! The engine side of the engine protocol (docs/engine.md): reads requests line by line, plays
//! its seats with one of this crate's bots, writes answers. `siguo engine` is this loop on
//! stdin/stdout.
use crate::engine_protocol::{
    seat_set, to_line, Answer, ErrorCode, Go, Request, Variant, WireEvent, PROTOCOL_VERSION,
};
use crate::{make_bot, Bot, Level};
use siguo_rules::{Deployment, Options, Seat, SeatSet};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::time::{Duration, Instant};

/// How `siguo engine` was started.
#[derive(Clone, Copy, Debug)]
pub struct EngineConfig {
    pub level: Level,
    /// The most the engine thinks per move: a `go` asking for more gets this much.
    pub budget: Duration,
    pub seed: u64,
}

struct GameState {
    variant: Variant,
    seats: SeatSet,
    bots: BTreeMap<Seat, Box<dyn Bot>>,
}

/// The engine: state between requests.
pub struct Engine {
    config: EngineConfig,
    game: Option<GameState>,
    games: u64,
}

impl Engine {
    pub fn new(config: EngineConfig) -> Engine {
        Engine { config, game: None, games: 0 }
    }

    /// Handle one line; the answers to write (none for `event`), and whether to stop.
    pub fn handle(&mut self, line: &str) -> (Vec<Answer>, bool) {
        let line = line.trim();
        if line.is_empty() {
            return (Vec::new(), false);
        }
        let req = match Request::parse(line) {
            Ok(r) => r,
            Err((code, message)) => return (vec![Answer::Error { code, message }], false),
        };
        match req {
            Request::Quit => (Vec::new(), true),
            Request::Hello { protocol } => (vec![self.hello(protocol)], false),
            Request::NewGame { variant, options, seats, deploy, deployments, seed } => {
                let given = Given { deploy, deployments: &deployments };
                (vec![self.new_game(variant, options.options, &seats, given, seed)], false)
            }
            Request::Event { event } => (self.event(&event).into_iter().collect(), false),
            Request::Go(go) => (self.go(&go), false),
        }
    }

    fn hello(&self, protocol: u32) -> Answer {
        if protocol != PROTOCOL_VERSION {
            return Answer::Error {
                code: ErrorCode::UnsupportedProtocol,
                message: format!("this engine speaks protocol {PROTOCOL_VERSION}, not {protocol}"),
            };
        }
        Answer::Ready {
            protocol: PROTOCOL_VERSION,
            name: format!("siguo {}", self.config.level.name()),
            options: BTreeMap::from([
                ("budget_ms".to_string(), (self.config.budget.as_millis() as u64).into()),
                ("seed".to_string(), self.config.seed.into()),
            ]),
        }
    }

    fn new_game(
        &mut self,
        variant: Variant,
        options: siguo_rules::Options,
        seats: &[Seat],
        given: Given,
        seed: Option<u64>,
    ) -> Answer {
        let Some(set) = seat_set(variant, seats) else {
            let message = match variant {
                Variant::FourPlayer => "seats must be one seat or the two seats of one team",
                Variant::HiddenFront => "seats must be one seat, S or N",
            };
            return Answer::Error { code: ErrorCode::BadSeats, message: message.into() };
        };
        if let Err(e) = options.validate() {
            return Answer::Error { code: ErrorCode::BadMessage, message: format!("options: {e}") };
        }
        if let Err(message) = given.check(variant, &options, set) {
            return Answer::Error { code: ErrorCode::BadMessage, message };
        }
        let deploy = given.deploy;
        self.games += 1;
        let base = seed.unwrap_or(self.config.seed ^ self.games.wrapping_mul(0x9E37_79B9));
        let mut bots = BTreeMap::new();
        for seat in set.seats() {
            let s = base.wrapping_mul(31).wrapping_add(seat.index() as u64);
            bots.insert(seat, make_bot(self.config.level, s, self.config.budget));
        }
        let deployments = if deploy {
            bots.iter_mut().map(|(&seat, bot)| bot.deploy_for(variant, seat, &options)).collect()
        } else {
            Vec::new()
        };
        self.game = Some(GameState { variant, seats: set, bots });
        Answer::Deployment { deployments }
    }

    fn event(&mut self, event: &WireEvent) -> Option<Answer> {
        let Some(game) = &mut self.game else {
            return Some(no_game());
        };
        if let WireEvent::Game(e) = event {
            for bot in game.bots.values_mut() {
                bot.observe(e);
            }
        }
        None
    }

    fn go(&mut self, go: &Go) -> Vec<Answer> {
        let start = Instant::now();
        let Some(game) = &mut self.game else {
            return vec![no_game()];
        };
        if go.view.variant != game.variant {
            return vec![Answer::Error {
                code: ErrorCode::BadMessage,
                message: format!(
                    "the view is of {}, the game of {}",
                    go.view.variant.name(),
                    game.variant.name()
                ),
            }];
        }
        let Some(seat) = go.view.turn.filter(|&s| game.seats.contains(s)) else {
            return vec![Answer::Error {
                code: ErrorCode::NotYourSeat,
                message: "the seat to move is not one of this engine's seats".into(),
            }];
        };
        let moves = go.moves();
        if moves.is_empty() {
            return vec![Answer::Error {
                code: ErrorCode::NoLegalMoves,
                message: "go needs at least one legal move".into(),
            }];
        }
        let budget = Duration::from_millis(go.budget_ms).min(self.config.budget);
        let bot = game.bots.get_mut(&seat).expect("a bot per seat");
        bot.set_budget(budget);
        let m = bot.choose(&go.view, &moves);
        let mut info = bot.info().unwrap_or_default();
        info.time_ms = Some(start.elapsed().as_millis() as u64);
        vec![Answer::Info(info), Answer::Move { from: m.from, to: m.to }]
    }
}

/// What `new_game` says about the deployment: whether the engine deploys, else the driver's
/// deployments of the engine's seats (possibly none).
#[derive(Clone, Copy)]
struct Given<'a> {
    deploy: bool,
    deployments: &'a [Deployment],
}

impl Given<'_> {
    /// Deployments come only when the driver deploys, one per seat of the engine, each legal.
    /// (The bots learn their pieces from the views; the deployments are only checked here.)
    fn check(self, variant: Variant, options: &Options, seats: SeatSet) -> Result<(), String> {
        if self.deployments.is_empty() {
            return Ok(());
        }
        if self.deploy {
            return Err("deployments are sent only when the driver deploys (deploy: false)".into());
        }
        let mut got: Vec<Seat> = self.deployments.iter().map(|d| d.seat).collect();
        got.sort();
        let mut want: Vec<Seat> = seats.seats().collect();
        want.sort();
        if got != want {
            return Err("deployments: one for each of the engine's seats".into());
        }
        for d in self.deployments {
            d.validate_for(variant, options).map_err(|e| format!("deployments: {e}"))?;
        }
        Ok(())
    }
}

fn no_game() -> Answer {
    Answer::Error { code: ErrorCode::NoGame, message: "no game: send new_game first".into() }
}

/// Serve the protocol on `input`/`output` until `quit` or the end of input.
pub fn serve(
    config: EngineConfig,
    input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    let mut engine = Engine::new(config);
    let mut input = input;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        if input.read_until(b'\n', &mut buf)? == 0 {
            break;
        }
        let (answers, stop) = match std::str::from_utf8(&buf) {
            Ok(line) => engine.handle(line),
            Err(_) => {
                let message = "the line is not UTF-8".to_string();
                (vec![Answer::Error { code: ErrorCode::InvalidJson, message }], false)
            }
        };
        if !answers.is_empty() {
            for a in &answers {
                writeln!(output, "{}", to_line(a))?;
            }
            output.flush()?;
        }
        if stop {
            break;
        }
    }
    Ok(())
}
