//! `siguo-tools selfplay --a-engine`: external engines play through the referee; one that
//! answers an illegal move or crashes forfeits, and the report says so.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use siguo_bots::engine_protocol::{Request, MAX_SEED};
use std::process::Command;

fn selfplay(a_engine: &str) -> (i32, String) {
    selfplay_in("four_player", a_engine)
}

fn selfplay_in(variant: &str, a_engine: &str) -> (i32, String) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/first_move_engine.sh");
    let out = Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .args(["selfplay", "--b", "random", "--games", "2", "--threads", "1", "--budget-ms", "20"])
        .args(["--variant", variant])
        .args(["--seed", "5", "--a-engine", &a_engine.replace("SCRIPT", script)])
        .output()
        .expect("run siguo-tools");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn an_honest_engine_plays_hidden_front() {
    let (code, out) = selfplay_in("hidden_front", "sh SCRIPT honest");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("selfplay: hidden_front:"), "{out}");
    assert!(out.contains("forfeits by A: 0") && out.contains("illegal moves: 0"), "{out}");
    assert!(out.contains("(95% CI, 2 games)"), "{out}");
}

#[test]
fn a_cheating_engine_forfeits_hidden_front() {
    let (code, out) = selfplay_in("hidden_front", "sh SCRIPT cheat");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("W 0 D 0 L 2") && out.contains("forfeits by A: 2"), "{out}");
}

#[test]
fn an_honest_engine_plays_whole_games() {
    let (code, out) = selfplay("sh SCRIPT honest");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("forfeits by A: 0"), "{out}");
    assert!(out.contains("(95% CI, 2 games)"), "{out}");
    assert!(!out.contains("forfeit:"), "{out}");
}

#[test]
fn an_engine_that_answers_an_illegal_move_forfeits() {
    let (code, out) = selfplay("sh SCRIPT cheat");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("W 0 D 0 L 2"), "{out}");
    assert!(out.contains("forfeits by A: 2"), "{out}");
    assert!(out.contains("forfeit: illegal answer: 0 / 2"), "{out}");
    assert!(out.contains("illegal move Cb2-Cb2"), "{out}");
}

#[test]
fn an_engine_that_crashes_forfeits() {
    let (code, out) = selfplay("exit 3");
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("forfeits by A: 2"), "{out}");
    assert!(out.contains("crashed"), "{out}");
}

/// A fresh empty directory under the system's temporary directory.
fn fresh_dir(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_nanos();
    let dir = std::env::temp_dir().join(format!("siguo-{name}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary directory");
    dir
}

/// What the recording engines received in one run, one list of requests per engine process.
fn recorded(variant: &str, seed: &str) -> Vec<Vec<Request>> {
    let dir = fresh_dir("record");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/first_move_engine.sh");
    let out = Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .args(["selfplay", "--b", "random", "--games", "2", "--threads", "1", "--budget-ms", "20"])
        .args(["--variant", variant, "--seed", seed, "--engine-margin-ms", "5000"])
        .args(["--a-engine", &format!("sh {script} honest")])
        .env("SIGUO_RECORD_DIR", &dir)
        .output()
        .expect("run siguo-tools");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let mut sessions = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("the record directory") {
        let text = std::fs::read_to_string(entry.expect("an entry").path()).expect("a record");
        let requests = text
            .lines()
            .map(|l| Request::parse(l).unwrap_or_else(|e| panic!("{l}: {e:?}")))
            .collect();
        sessions.push(requests);
    }
    let _ = std::fs::remove_dir_all(&dir);
    sessions
}

/// Issue 31: the engine that plays a game is the one that deploys in it (or is sent its
/// deployment in `new_game`), so it knows its own pieces before any event; there is no
/// throwaway process; every seed is at most 2^53 − 1 (exact in JavaScript's JSON.parse).
#[test]
fn every_engine_knows_its_deployment_before_any_event_and_seeds_fit_a_double() {
    for (variant, a_seats) in [("four_player", 2), ("hidden_front", 1)] {
        for seed in ["5", "18446744073709551615"] {
            let sessions = recorded(variant, seed);
            // One process per seat and game: A's seats in each of the 2 games, nothing more.
            assert_eq!(sessions.len(), 2 * a_seats, "{variant}: {sessions:#?}");
            let (mut deployed, mut given) = (0, 0);
            for requests in &sessions {
                let at_new_game: Vec<usize> = requests
                    .iter()
                    .enumerate()
                    .filter(|(_, r)| matches!(r, Request::NewGame { .. }))
                    .map(|(i, _)| i)
                    .collect();
                assert_eq!(at_new_game.len(), 1, "{variant}: one game per process");
                let first_event = requests.iter().position(|r| matches!(r, Request::Event { .. }));
                let first_go = requests.iter().position(|r| matches!(r, Request::Go(_)));
                // It plays the game: events, then its moves.
                let (Some(first_event), Some(_)) = (first_event, first_go) else {
                    panic!("{variant}: a process that does not play: {requests:?}")
                };
                assert!(at_new_game[0] < first_event, "{variant}: new_game comes first");
                let Request::NewGame { seats, deploy, deployments, seed, .. } =
                    &requests[at_new_game[0]]
                else {
                    unreachable!()
                };
                if *deploy {
                    assert!(deployments.is_empty(), "{variant}");
                    deployed += 1;
                } else {
                    // The driver deployed: the engine is told its own deployment.
                    assert_eq!(deployments.len(), 1, "{variant}: {requests:?}");
                    assert_eq!(deployments[0].seat, seats[0], "{variant}");
                    given += 1;
                }
                let seed = seed.expect("selfplay sends a seed");
                assert!(seed <= MAX_SEED, "{variant}: seed {seed}");
            }
            // The first game's engines deploy; the second game's are sent the deployments B made.
            assert_eq!((deployed, given), (a_seats, a_seats), "{variant}");
        }
    }
}
