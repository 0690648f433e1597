//! The referee command `siguo rules ...` (rules.md §11), run as a subprocess.
use serde_json::{json, Value};
use std::io::Write;
use std::process::{Command, Stdio};

fn referee(args: &[&str], input: &str) -> (i32, Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_siguo"))
        .arg("rules")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn siguo");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    (out.status.code().unwrap(), v)
}

#[test]
fn moves_sparse_position() {
    let pos = json!({"turn": "S", "pieces": {"Sa1": "S9", "Ca1": "E3", "Sb6": "SF"}});
    let (code, v) = referee(&["moves"], &pos.to_string());
    assert_eq!(code, 0, "{v}");
    let moves: Vec<String> = serde_json::from_value(v["moves"].clone()).unwrap();
    assert!(moves.contains(&"Sa1-Ca1".to_string()));
    assert!(moves.contains(&"Sa1-Sa5".to_string()));
    assert!(moves.contains(&"Sa1-Sb2".to_string()));
    assert!(moves.contains(&"Sa1-Se1".to_string()));
    assert!(!moves.iter().any(|m| m.starts_with("Sb6")));
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
}

#[test]
fn play_capture_flag_wins() {
    let pos = json!({
        "turn": "S",
        "pieces": {"Eb5": "S5", "Eb6": "EF", "Ea1": "E2", "Wa1": "W2", "Na1": "N1"},
        "eliminated": []
    });
    let input = json!({"position": pos, "actions": ["Eb5-Eb6", "surrender W"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["status"]["state"], "won");
    assert_eq!(v["status"]["winner"], "NS");
    let events = v["events"].as_array().unwrap();
    assert_eq!(events[0]["type"], "moved");
    assert_eq!(events[0]["combat"], "attacker_won");
    assert_eq!(v["position"]["pieces"]["Eb6"], "S5");
    assert!(v["position"]["pieces"].get("Ea1").is_none());
    assert_eq!(events[1], json!({"type": "eliminated", "seat": "E", "reason": "flag_captured"}));
}

#[test]
fn play_illegal_action_exit_2() {
    let pos = json!({"turn": "S", "pieces": {"Sa1": "S9", "Na1": "N3"}});
    let input = json!({"position": pos, "actions": ["Sa1-Sa2", "Na1-Sa1"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 2);
    // after S moves, E has no piece: eliminated; N is next, then Na1-Sa1 is not adjacent
    assert_eq!(v["error"]["index"], 1);
    assert!(v["error"]["code"].is_string());
    assert!(v["error"]["message"].is_string());
}

#[test]
fn bad_input_exit_2() {
    let (code, v) = referee(&["moves"], "{not json");
    assert_eq!(code, 2);
    assert_eq!(v["error"]["code"], "malformed_json");
    let (code, v) = referee(&["moves"], r#"{"turn":"S","pieces":{"Sz9":"S9"}}"#);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["code"], "invalid_position");
    let (code, _) = referee(&["moves"], r#"{"turn":"S","pieces":{"Sa1":"SX"}}"#);
    assert_eq!(code, 2);
    let (code, v) = referee(&["moves"], r#"{"turn":"S","pieces":{},"options":{"max_steps":3}}"#);
    assert_eq!(code, 2);
    assert_eq!(v["error"]["code"], "invalid_options");
    let input = json!({"position": {"turn": "S", "pieces": {}}, "actions": ["jump"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 2);
    assert_eq!(v["error"]["code"], "invalid_action");
    assert_eq!(v["error"]["index"], 0);
}

#[test]
fn view_hides_ranks() {
    let pos = json!({"turn": "S", "pieces": {"Sa1": "S9", "Ea1": "E3", "Na1": "N2"}});
    let (code, v) = referee(&["view", "S"], &pos.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["pieces"]["Sa1"], "S9");
    assert_eq!(v["pieces"]["Ea1"], "E?");
    assert_eq!(v["pieces"]["Na1"], "N?");
    let (code, _) = referee(&["view", "X"], &pos.to_string());
    assert_eq!(code, 2);
}

#[test]
fn play_timeout_and_draw() {
    let pos = json!({"turn": "N", "pieces": {"Na1": "N3", "Ea1": "E3", "Sa1": "S3", "Wa1": "W3"}});
    let input = json!({"position": pos, "actions": ["timeout", "draw"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["position"]["skips"]["N"], 1);
    assert_eq!(v["position"]["turn"], "E");
    assert_eq!(v["status"]["state"], "draw");
    assert_eq!(v["status"]["reason"], "agreement");
}
