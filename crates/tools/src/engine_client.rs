//! The driver side of the engine protocol (docs/engine.md): an external engine process playing
//! one seat, with answers read on a thread so that a slow or dead engine is noticed in time.
use siguo_bots::engine_protocol::{
    to_line, wire_seed, Answer, Go, Request, Variant, WireEvent, PROTOCOL_VERSION,
};
use siguo_rules::{Deployment, Options, Seat};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// Who deploys an engine's seat in `new_game`.
#[derive(Clone, Copy, Debug)]
pub enum Deploy<'a> {
    /// The engine deploys it (`deploy: true`).
    Ask,
    /// The driver deployed it: this deployment is sent in `deployments` (`deploy: false`).
    Given(&'a Deployment),
}

/// Why an engine lost the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Could not start, or closed its output / exited.
    Crashed(String),
    /// No answer within the budget plus the margin.
    TooSlow { waited_ms: u64 },
    /// An answer that is not the legal answer to the request (illegal move, error, bad line).
    BadAnswer(String),
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Fault::Crashed(m) => write!(f, "crashed ({m})"),
            Fault::TooSlow { waited_ms } => {
                write!(f, "over budget (no answer after {waited_ms} ms)")
            }
            Fault::BadAnswer(m) => write!(f, "illegal answer ({m})"),
        }
    }
}

/// What an engine answered to `go` (already checked to be well-formed, not yet legal).
pub enum Reply {
    Move { from: siguo_rules::Station, to: siguo_rules::Station },
    Draw,
    Surrender,
}

pub struct EngineProc {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    /// `error` lines received outside a `go` (answers to events), counted for the report.
    pub stray_errors: usize,
}

impl EngineProc {
    /// Start `command` (through `sh -c`) and do the `hello` → `ready` handshake.
    pub fn start(command: &str, timeout: Duration) -> Result<EngineProc, Fault> {
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| Fault::Crashed(format!("cannot start {command:?}: {e}")))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut e = EngineProc { child, stdin, lines, stray_errors: 0 };
        e.send(&Request::Hello { protocol: PROTOCOL_VERSION })?;
        match e.answer(timeout)? {
            Answer::Ready { .. } => Ok(e),
            other => Err(Fault::BadAnswer(format!("{other:?} to hello"))),
        }
    }

    /// One request, one write (the pipe is not buffered).
    pub fn send(&mut self, req: &Request) -> Result<(), Fault> {
        let mut line = to_line(req);
        line.push('\n');
        self.stdin.write_all(line.as_bytes()).map_err(|e| Fault::Crashed(format!("write: {e}")))
    }

    /// The next answer line that is not `info`, within `timeout`.
    fn answer(&mut self, timeout: Duration) -> Result<Answer, Fault> {
        let start = Instant::now();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            let line = match self.lines.recv_timeout(left) {
                Ok(l) => l,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(Fault::TooSlow { waited_ms: start.elapsed().as_millis() as u64 })
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(Fault::Crashed("closed its output".into()))
                }
            };
            match serde_json::from_str::<Answer>(&line) {
                Ok(Answer::Info(_)) => continue,
                Ok(a) => return Ok(a),
                Err(e) => {
                    let l: String = line.chars().take(80).collect();
                    return Err(Fault::BadAnswer(format!("{l:?}: {e}")));
                }
            }
        }
    }

    /// `new_game` for `seat`: with [`Deploy::Ask`], the engine's deployment of it (checked by the
    /// caller); with [`Deploy::Given`], the driver's deployment is sent along (the engine answers
    /// an empty list). `seed` goes out reduced to at most 2^53 − 1 ([`wire_seed`]).
    pub fn new_game(
        &mut self,
        variant: Variant,
        options: &Options,
        seat: Seat,
        deploy: Deploy,
        seed: u64,
        timeout: Duration,
    ) -> Result<Option<Deployment>, Fault> {
        let ask = matches!(deploy, Deploy::Ask);
        self.send(&Request::NewGame {
            variant,
            options: options.shown(variant),
            seats: vec![seat],
            deploy: ask,
            deployments: match deploy {
                Deploy::Ask => Vec::new(),
                Deploy::Given(d) => vec![d.clone()],
            },
            seed: Some(wire_seed(seed)),
        })?;
        match self.answer(timeout)? {
            Answer::Deployment { mut deployments } if ask => match deployments.len() {
                1 if deployments[0].seat == seat => Ok(deployments.pop()),
                n => Err(Fault::BadAnswer(format!("{n} deployments for one seat"))),
            },
            Answer::Deployment { .. } => Ok(None),
            other => Err(Fault::BadAnswer(format!("{other:?} to new_game"))),
        }
    }

    pub fn event(&mut self, event: WireEvent) -> Result<(), Fault> {
        self.send(&Request::Event { event })
    }

    /// `go`, and the reply within `go.budget_ms + margin`.
    pub fn go(&mut self, go: Go, margin: Duration) -> Result<Reply, Fault> {
        // Answers to events (errors) that arrived since the last `go` are not answers to it.
        while let Ok(line) = self.lines.try_recv() {
            if matches!(serde_json::from_str::<Answer>(&line), Ok(Answer::Error { .. })) {
                self.stray_errors += 1;
            }
        }
        let timeout = Duration::from_millis(go.budget_ms) + margin;
        self.send(&Request::Go(go))?;
        match self.answer(timeout)? {
            Answer::Move { from, to } => Ok(Reply::Move { from, to }),
            Answer::Draw => Ok(Reply::Draw),
            Answer::Surrender => Ok(Reply::Surrender),
            Answer::Error { code, message } => {
                Err(Fault::BadAnswer(format!("error {code:?}: {message}")))
            }
            other => Err(Fault::BadAnswer(format!("{other:?} to go"))),
        }
    }
}

impl Drop for EngineProc {
    fn drop(&mut self) {
        let _ = self.send(&Request::Quit);
        // Give it a moment to exit on its own, then make sure it is gone.
        let until = Instant::now() + Duration::from_millis(200);
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
