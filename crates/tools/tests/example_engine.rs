//! The example engine in Python (`examples/engine/random_engine.py`, standard library only)
//! speaks the engine protocol: its deployments are legal, it answers bad lines with the
//! documented error codes, and it plays whole legal games of both variants through
//! `siguo-tools selfplay`. Needs `python3` (on the CI machine; the test fails without it).
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use siguo_bots::engine_protocol::{to_line, Answer, ErrorCode, Request, Variant};
use siguo_rules::{Options, Seat};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/engine/random_engine.py");

/// Send `lines` to a fresh example engine and read every answer it writes (one per line).
fn session(lines: &[String]) -> Vec<Answer> {
    let mut child = Command::new("python3")
        .arg(SCRIPT)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the example engine");
    let mut stdin = child.stdin.take().expect("piped stdin");
    for l in lines {
        writeln!(stdin, "{l}").expect("write a request");
    }
    drop(stdin);
    let out = BufReader::new(child.stdout.take().expect("piped stdout"));
    let answers = out
        .lines()
        .map(|l| {
            let l = l.expect("a line");
            serde_json::from_str(&l).unwrap_or_else(|e| panic!("not an answer: {l}: {e}"))
        })
        .collect();
    assert!(child.wait().expect("the engine exits").success());
    answers
}

#[test]
fn its_random_deployments_are_legal_in_both_games() {
    let mut lines = vec![to_line(&Request::Hello { protocol: 2 })];
    let mut asked = Vec::new();
    for (variant, seats) in [
        (Variant::FourPlayer, &[Seat::N, Seat::E, Seat::S, Seat::W][..]),
        (Variant::HiddenFront, &[Seat::S, Seat::N][..]),
    ] {
        for &seat in seats {
            for seed in 0..25 {
                let options = Options::from_json_for(variant, None).expect("defaults");
                lines.push(to_line(&Request::NewGame {
                    variant,
                    options: options.shown(variant),
                    seats: vec![seat],
                    deploy: true,
                    deployments: Vec::new(),
                    seed: Some(seed),
                }));
                asked.push((variant, options, seat));
            }
        }
    }
    let answers = session(&lines);
    assert!(matches!(answers[0], Answer::Ready { protocol: 2, .. }), "{:?}", answers[0]);
    assert_eq!(answers.len(), 1 + asked.len());
    for ((variant, options, seat), a) in asked.iter().zip(&answers[1..]) {
        let Answer::Deployment { deployments } = a else { panic!("{a:?}") };
        let [d] = &deployments[..] else { panic!("{deployments:?}") };
        assert_eq!(d.seat, *seat);
        d.validate_for(*variant, options).unwrap_or_else(|e| panic!("{variant:?} {seat:?}: {e}"));
    }
}

#[test]
fn it_answers_bad_lines_with_the_documented_codes() {
    let lines: Vec<String> = [
        "not json",
        r#"{"type":"hello","protocol":99}"#,
        r#"{"type":"castle"}"#,
        r#"{"type":"event","event":{"type":"battle_started"}}"#,
        r#"{"type":"new_game","variant":"chess","seats":["N"]}"#,
        r#"{"type":"new_game","variant":"hidden_front","seats":["E"]}"#,
        r#"{"type":"hello","protocol":2}"#,
    ]
    .map(String::from)
    .to_vec();
    let answers = session(&lines);
    let codes: Vec<Option<ErrorCode>> = answers
        .iter()
        .map(|a| match a {
            Answer::Error { code, .. } => Some(*code),
            _ => None,
        })
        .collect();
    use ErrorCode::*;
    let want =
        [InvalidJson, UnsupportedProtocol, UnknownType, NoGame, UnsupportedVariant, BadSeats];
    assert_eq!(codes[..6], want.map(Some), "{answers:?}");
    assert!(matches!(answers[6], Answer::Ready { .. }), "it keeps serving: {answers:?}");
}

/// Two games of `variant` between the example engine (A) and the built-in random bot.
fn two_games(variant: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .args(["selfplay", "--variant", variant, "--b", "random", "--games", "2"])
        .args(["--threads", "1", "--seed", "3", "--budget-ms", "100"])
        // The games are about legality, not speed: a loaded CI machine must not make it forfeit.
        .args(["--engine-margin-ms", "5000"])
        .args(["--a-engine", &format!("python3 {SCRIPT}")])
        .output()
        .expect("run siguo-tools");
    let out = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.contains("(95% CI, 2 games)"), "{out}");
    for line in ["illegal moves: 0", "crashes: 0", "forfeits by A: 0", "forfeits by B: 0"] {
        assert!(out.contains(line), "{line}: {out}");
    }
    // Every game ended by a rule of the game (a win or a draw), never by a forfeit.
    let endings: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("how games ended"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    assert!(!endings.is_empty(), "{out}");
    for e in &endings {
        assert!(e.starts_with("win: ") || e.starts_with("draw: "), "{e}: {out}");
        assert!(!e.contains("forfeit") && !e.contains("?"), "{e}: {out}");
    }
    assert!(out.contains("time per move, A (engine \"python3 "), "{out}");
}

#[test]
fn it_plays_legal_four_player_games_through_selfplay() {
    two_games("four_player");
}

#[test]
fn it_plays_legal_hidden_front_games_through_selfplay() {
    two_games("hidden_front");
}
