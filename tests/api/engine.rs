//! `siguo engine` (docs/engine.md) as a subprocess: a scripted session for each bot, and bad
//! lines that get errors while the engine keeps running.
use siguo_bots::engine_protocol::{to_line, Answer, ErrorCode, Go, LiveEvent, Request, WireEvent};
use siguo_rules::{Action, Deployment, Game, Options, Seat, SeatSet};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

struct Engine {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Engine {
    fn start(bot: &str) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_siguo"))
            .args(["engine", "--bot", bot, "--budget-ms", "30", "--seed", "4"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn siguo engine");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Engine { child, stdin, stdout }
    }
    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }
    fn read(&mut self) -> Answer {
        let mut line = String::new();
        assert!(self.stdout.read_line(&mut line).unwrap() > 0, "the engine closed its output");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{line}: {e}"))
    }
    /// The answer to a `go`: the last line after any `info` lines.
    fn read_answer(&mut self) -> Answer {
        loop {
            match self.read() {
                Answer::Info(_) => continue,
                a => return a,
            }
        }
    }
    fn quit(mut self) {
        self.send(r#"{"type":"quit"}"#);
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status:?}");
    }
}

#[test]
fn scripted_session_against_the_binary_for_each_bot() {
    let options = Options::default();
    for bot in ["random", "greedy", "standard", "standard-v1"] {
        let mut e = Engine::start(bot);
        e.send(r#"{"type":"hello","protocol":2}"#);
        let Answer::Ready { name, .. } = e.read() else { panic!("{bot}: no ready") };
        assert_eq!(name, format!("siguo {bot}"));
        e.send(r#"{"type":"new_game","variant":"four_player","seats":["N","S"],"deploy":true}"#);
        let Answer::Deployment { deployments } = e.read() else { panic!("{bot}: no deployment") };
        let seats: Vec<Seat> = deployments.iter().map(|d| d.seat).collect();
        assert_eq!(seats, [Seat::N, Seat::S]);
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(1);
        let deps: [Deployment; 4] = Seat::ALL.map(|s| match s {
            Seat::N => deployments[0].clone(),
            Seat::S => deployments[1].clone(),
            _ => Deployment::random(s, &options, &mut rng),
        });
        let mut game = Game::new(options, &deps).expect("the engine's deployments are legal");
        // Twelve moves: the engine plays N and S, the test plays E and W.
        play_steps(&mut e, &mut game, SeatSet::one(Seat::N).with(Seat::S), 12, bot);
        e.quit();
    }
}

/// Play `steps` steps of `game`: the engine answers `go` for the seats `mine` (every answer must
/// be a legal move), the test plays the first legal move for the others; every event goes to
/// the engine first.
fn play_steps(e: &mut Engine, game: &mut Game, mine: SeatSet, steps: usize, bot: &str) {
    let mut events: Vec<WireEvent> = vec![LiveEvent::BattleStarted.into()];
    events.extend(game.initial_events().into_iter().map(WireEvent::from));
    for _ in 0..steps {
        for ev in events.drain(..) {
            e.send(&to_line(&Request::Event { event: ev }));
        }
        let Some(turn) = game.turn() else { break };
        let m = if mine.contains(turn) {
            e.send(&to_line(&Request::Go(Go::for_seats(game, mine, 30, None))));
            match e.read_answer() {
                Answer::Move { from, to } => (from, to),
                other => panic!("{bot}: {other:?}"),
            }
        } else {
            let m = game.legal_moves()[0].clone();
            (m.from, m.to)
        };
        let ev = game.apply(&Action::Move { from: m.0, to: m.1 });
        events.extend(ev.expect("the engine's move is legal").into_iter().map(WireEvent::from));
    }
}

#[test]
fn malformed_lines_get_errors_and_the_engine_survives() {
    let mut e = Engine::start("greedy");
    for (line, code) in [
        ("{", ErrorCode::InvalidJson),
        ("42", ErrorCode::InvalidJson),
        (r#"{"type":"fly"}"#, ErrorCode::UnknownType),
        (r#"{"type":"go"}"#, ErrorCode::BadMessage),
        (r#"{"type":"hello","protocol":99}"#, ErrorCode::UnsupportedProtocol),
        (r#"{"type":"event","event":{"type":"turn","seat":"N","steps":0}}"#, ErrorCode::NoGame),
    ] {
        e.send(line);
        match e.read() {
            Answer::Error { code: c, .. } => assert_eq!(c, code, "{line}"),
            other => panic!("{line}: {other:?}"),
        }
    }
    e.send(r#"{"type":"hello","protocol":2}"#);
    assert!(matches!(e.read(), Answer::Ready { .. }));
    e.quit();
}

#[test]
fn hidden_front_session_against_the_binary_for_each_bot() {
    use siguo_rules::Variant;
    let options = Options::for_variant(Variant::HiddenFront);
    for bot in ["random", "greedy", "standard", "standard-v1"] {
        let mut e = Engine::start(bot);
        e.send(r#"{"type":"hello","protocol":2}"#);
        assert!(matches!(e.read(), Answer::Ready { .. }), "{bot}");
        e.send(r#"{"type":"new_game","variant":"hidden_front","seats":["N"],"deploy":true}"#);
        let Answer::Deployment { deployments } = e.read() else { panic!("{bot}: no deployment") };
        let [north] = &deployments[..] else { panic!("{bot}: {deployments:?}") };
        let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(2);
        let south = Deployment::random_for(Variant::HiddenFront, Seat::S, &options, &mut rng);
        let mut game = Game::start(Variant::HiddenFront, options, &[south, north.clone()])
            .expect("the engine's Hidden Front deployment is legal");
        // Twenty steps: South (the test) moves first, the engine plays North.
        play_steps(&mut e, &mut game, SeatSet::one(Seat::N), 20, bot);
        e.quit();
    }
}
