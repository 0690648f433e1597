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

// ----- Hidden Front (hidden-front.md §8) -----

fn hf(turn: &str, pieces: Value) -> Value {
    json!({"variant": "hidden_front", "turn": turn, "pieces": pieces})
}

#[test]
fn hidden_front_moves_cross_the_front_only_at_a_c_e() {
    let pos = hf(
        "S",
        json!({"A7": "S5", "B7": "S5", "C7": "S5", "D7": "S5", "E7": "S5", "B1": "NF", "C1": "N2"}),
    );
    let (code, v) = referee(&["moves"], &pos.to_string());
    assert_eq!(code, 0, "{v}");
    let moves: Vec<String> = serde_json::from_value(v["moves"].clone()).unwrap();
    for m in ["A7-A6", "C7-C6", "E7-E6", "A7-A2"] {
        assert!(moves.contains(&m.to_string()), "{m}: {moves:?}");
    }
    for m in ["B7-B6", "D7-D6"] {
        assert!(!moves.contains(&m.to_string()), "{m} crosses a mountain");
    }
    let mut sorted = moves.clone();
    sorted.sort();
    assert_eq!(moves, sorted);
}

#[test]
fn hidden_front_play_flag_capture_and_position_format() {
    let pos = hf("S", json!({"B2": "S3", "B1": "NF", "C1": "N2", "C12": "S2"}));
    let input = json!({"position": pos, "actions": ["B2-B1"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["status"], json!({"state": "won", "winner": "S", "reason": "flag_captured"}));
    assert_eq!(v["position"]["variant"], "hidden_front");
    assert_eq!(v["position"]["pieces"]["B1"], "S3");
    assert_eq!(v["position"]["timeouts"], json!({"N": 0, "S": 0}));
    assert_eq!(v["position"]["quiet_steps"], 0);
    assert_eq!(v["position"]["steps"], 1);
    assert_eq!(v["events"].as_array().unwrap().last().unwrap()["type"], "game_over");
}

#[test]
fn hidden_front_play_timeouts_quiet_steps_and_draw_offers() {
    let mut pos = hf("S", json!({"C1": "N2", "C12": "S2"}));
    pos["timeouts"] = json!({"S": 2, "N": 0});
    pos["quiet_steps"] = json!(50);
    let input = json!({"position": pos, "actions": ["offer N", "timeout"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["status"], json!({"state": "won", "winner": "N", "reason": "timeouts"}));
    assert_eq!(v["position"]["timeouts"]["S"], 3);
    let mut pos = hf("S", json!({"C1": "N2", "C12": "S2"}));
    pos["quiet_steps"] = json!(99);
    let input = json!({"position": pos, "actions": ["C12-C11"]});
    let (_, v) = referee(&["play"], &input.to_string());
    assert_eq!(v["status"], json!({"state": "draw", "winner": null, "reason": "no_combat"}));
    let pos = hf("S", json!({"C1": "N2", "C12": "S2"}));
    let input = json!({"position": pos, "actions": ["offer S", "C12-C11", "accept N"]});
    let (_, v) = referee(&["play"], &input.to_string());
    assert_eq!(v["status"]["reason"], "agreement");
    let input = json!({"position": pos, "actions": ["offer S", "decline N", "offer S"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 2);
    assert_eq!(
        v["error"],
        json!({"code": "draw_offer_too_soon", "index": 2, "message": v["error"]["message"]})
    );
}

/// hidden-front.md §8: `rules view` of a Hidden Front position names its counters `steps`,
/// `quiet_steps` and `timeouts` (never `skips`), and its options are Hidden Front's own, with
/// its fixed limits (no `max_skips`, `max_steps` or `info_mode`); the same in `play`'s position.
#[test]
fn hidden_front_view_counters_and_options() {
    let mut pos = hf("S", json!({"C1": "N2", "C12": "S2", "B1": "NF"}));
    pos["timeouts"] = json!({"S": 2, "N": 1});
    pos["quiet_steps"] = json!(40);
    pos["steps"] = json!(55);
    let (code, v) = referee(&["view", "N"], &pos.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["timeouts"], json!({"S": 2, "N": 1}), "{v}");
    assert_eq!((&v["steps"], &v["quiet_steps"]), (&json!(55), &json!(40)));
    assert!(v.get("skips").is_none(), "no four-player counter: {v}");
    let hf_options = json!({"move_seconds": 30, "deploy_seconds": 90, "reconnect_seconds": 60,
        "flag_capture": "any", "mines": "mutual", "max_timeouts": 3, "max_quiet_steps": 100});
    assert_eq!(v["options"], hf_options);
    assert_eq!(v["pieces"]["C12"], "S?", "North does not see South's rank");
    let input = json!({"position": pos, "actions": ["C12-C11"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["position"]["options"], hf_options);
    // a four-player option in a Hidden Front position is refused
    let mut bad = hf("S", json!({"C1": "N2", "C12": "S2"}));
    bad["options"] = json!({"max_steps": 300});
    let (c, v) = referee(&["view", "S"], &bad.to_string());
    assert_eq!((c, v["error"]["code"].as_str()), (2, Some("invalid_position")), "{v}");
}

#[test]
fn hidden_front_bad_positions_exit_2() {
    for (pos, code) in [
        (hf("S", json!({"Sa1": "S9"})), "station_not_on_board"),
        (hf("S", json!({"A1": "E9"})), "seat_not_in_game"),
        (hf("S", json!({"F1": "S9"})), "invalid_position"),
        (json!({"turn": "S", "pieces": {"C7": "S9"}}), "station_not_on_board"),
        (json!({"variant": "chess", "turn": "S", "pieces": {}}), "invalid_position"),
    ] {
        let (c, v) = referee(&["moves"], &pos.to_string());
        assert_eq!((c, v["error"]["code"].as_str()), (2, Some(code)), "{pos}");
    }
    let input = json!({"position": hf("S", json!({"C12": "S2", "C1": "N2"})), "actions": ["C12-B11", "C1-C2"]});
    let (code, v) = referee(&["play"], &input.to_string());
    assert_eq!(
        (code, v["error"]["code"].as_str(), v["error"]["index"].as_i64()),
        (2, Some("illegal_move"), Some(0))
    );
}

#[test]
fn hidden_front_view_hides_ranks() {
    let pos = hf("S", json!({"C7": "S9", "C6": "N3", "B1": "NF"}));
    let (code, v) = referee(&["view", "N"], &pos.to_string());
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["pieces"]["C7"], "S?");
    assert_eq!(v["pieces"]["C6"], "N3");
    assert_eq!(v["variant"], "hidden_front");
    assert_eq!(v["quiet_steps"], 0);
    let (_, v) = referee(&["view", "spectator"], &pos.to_string());
    assert_eq!(v["pieces"]["B1"], "N?");
    let (code, v) = referee(&["view", "E"], &pos.to_string());
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("invalid_seat")));
}

fn random_deployment(variant: siguo_rules::Variant, seat: siguo_rules::Seat) -> Value {
    use rand::SeedableRng;
    let o = siguo_rules::Options::for_variant(variant);
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let d = siguo_rules::Deployment::random_for(variant, seat, &o, &mut rng);
    serde_json::to_value(&d.pieces).unwrap()
}

#[test]
fn deploy_accepts_legal_and_names_the_broken_rule() {
    use siguo_rules::{Seat, Variant};
    // four-player, ranks as values, variant omitted
    let pieces = random_deployment(Variant::FourPlayer, Seat::W);
    let (code, v) = referee(&["deploy", "W"], &json!({"pieces": pieces}).to_string());
    assert_eq!((code, &v), (0, &json!({"ok": true})));
    let (code, v) = referee(&["deploy", "E"], &json!({"pieces": pieces}).to_string());
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("outside_region")));
    // Hidden Front, pieces written as in positions
    let mut pieces = random_deployment(Variant::HiddenFront, Seat::N);
    for v in pieces.as_object_mut().unwrap().values_mut() {
        *v = json!(format!("N{}", v.as_str().unwrap()));
    }
    let input = json!({"variant": "hidden_front", "pieces": pieces});
    let (code, v) = referee(&["deploy", "N"], &input.to_string());
    assert_eq!((code, &v), (0, &json!({"ok": true})));
    // a mine moved into the free headquarters
    let obj = pieces.as_object().unwrap();
    let flag_hq = obj.iter().find(|(_, p)| *p == "NF").unwrap().0.clone();
    let other_hq = if flag_hq == "B1" { "D1" } else { "B1" };
    let mine = obj.iter().find(|(_, p)| *p == "NM").unwrap().0.clone();
    let mut bad = pieces.clone();
    let displaced = bad[other_hq].clone();
    bad[other_hq] = json!("NM");
    bad[&mine] = displaced;
    let input = json!({"variant": "hidden_front", "pieces": bad});
    let (code, v) = referee(&["deploy", "N"], &input.to_string());
    assert_eq!(code, 2, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains(other_hq), "{v}");
    // (the displaced piece, neither flag nor mine, may stand on the mine's back-row station)
    assert_eq!(v["error"]["code"], "mine_in_headquarters", "{v}");
    // other errors: a piece of the other seat, East in Hidden Front, a missing seat, options
    let (code, v) = referee(
        &["deploy", "S"],
        &json!({"variant": "hidden_front", "pieces": pieces}).to_string(),
    );
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("wrong_owner")));
    let (code, v) =
        referee(&["deploy", "E"], &json!({"variant": "hidden_front", "pieces": {}}).to_string());
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("invalid_seat")));
    let (code, v) = referee(&["deploy"], &json!({"pieces": {}}).to_string());
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("missing_seat")));
    let input = json!({"variant": "hidden_front", "pieces": pieces, "options": {"max_skips": 0}});
    let (code, v) = referee(&["deploy", "N"], &input.to_string());
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("invalid_options")));
    let (code, v) = referee(
        &["deploy", "N"],
        &json!({"variant": "hidden_front", "pieces": {"A1": "N9"}}).to_string(),
    );
    assert_eq!((code, v["error"]["code"].as_str()), (2, Some("wrong_count")));
}
