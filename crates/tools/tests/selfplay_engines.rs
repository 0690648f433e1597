//! `siguo-tools selfplay --a-engine`: external engines play through the referee; one that
//! answers an illegal move or crashes forfeits, and the report says so.
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
