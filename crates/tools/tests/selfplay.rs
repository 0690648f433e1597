//! `siguo-tools selfplay`: a short tournament plays its games and reports them; bad options are
//! refused with exit status 2.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use std::process::Command;

fn selfplay(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_siguo-tools"))
        .arg("selfplay")
        .args(args)
        .output()
        .expect("run siguo-tools selfplay");
    let text = |b: &[u8]| String::from_utf8_lossy(b).to_string();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn a_short_tournament_is_reported() {
    let (code, out, err) = selfplay(&[
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "2",
        "--seed",
        "3",
        "--threads",
        "1",
        "--budget-ms",
        "1",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(out.contains("A = greedy (1 ms) vs B = random (1 ms), 2 games (1 pairs"), "{out}");
    let line = out.lines().find(|l| l.starts_with("A (greedy) against B (random): W ")).unwrap();
    let counts: Vec<u32> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert_eq!(counts.iter().sum::<u32>(), 2, "{line}");
    assert!(out.contains("illegal moves: 0") && out.contains("crashes: 0"), "{out}");
}

#[test]
fn a_short_hidden_front_tournament_is_reported() {
    let (code, out, err) = selfplay(&[
        "--variant",
        "hidden_front",
        "--a",
        "standard",
        "--b",
        "greedy",
        "--games",
        "4",
        "--seed",
        "7",
        "--jobs",
        "1",
        "--budget-ms",
        "5",
    ]);
    assert_eq!(code, Some(0), "{out}\n{err}");
    assert!(
        out.contains("selfplay: hidden_front: A = standard (5 ms) vs B = greedy (5 ms), 4 games")
    );
    let line = out.lines().find(|l| l.starts_with("A (standard) against B (greedy): W ")).unwrap();
    let counts: Vec<u32> = line.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    assert_eq!(counts.iter().sum::<u32>(), 4, "{line}");
    assert!(out.contains("illegal moves: 0") && out.contains("crashes: 0"), "{out}");
    // Issue 31: the mean beside the percentiles, for each side, and within 0..=max.
    for side in ["A (standard)", "B (greedy)"] {
        let prefix = format!("time per move, {side}: mean ");
        let line = out.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("{out}"));
        let ms: Vec<f64> =
            line.split_whitespace().filter_map(|w| w.trim_end_matches(',').parse().ok()).collect();
        let [mean, p50, p99, max, moves] = ms[..] else { panic!("{line}") };
        assert!(line.contains(&format!("mean {mean:.2} ms, p50 {p50:.2} ms, p99 ")), "{line}");
        assert!(moves >= 1.0 && mean <= max && p50 <= p99 && p99 <= max, "{line}");
        // The standard bot thinks for part of its 5 ms budget on most moves.
        assert!(!side.starts_with('A') || mean > 0.5, "{line}");
    }
}

#[test]
fn an_unknown_game_is_refused() {
    let (code, _, err) = selfplay(&["--games", "2", "--variant", "xiangqi"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("xiangqi"), "{err}");
}

#[test]
fn bad_options_are_refused() {
    let (code, _, err) = selfplay(&["--games", "2", "--options", "{\"max_steps\": \"many\"}"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--options"), "{err}");
}
