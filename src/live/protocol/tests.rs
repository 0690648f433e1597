//! The parser's refusals, and docs/protocol.md checked against the types: every JSON example
//! parses as the message type its block names, a server message reads back field for field,
//! and every message type, live event and error code appears in the doc.
use super::*;
use serde_json::json;
use siguo_rules::View;
use std::collections::BTreeSet;

#[test]
fn parses_and_refuses() {
    let (id, m) = parse(r#"{"type":"move","id":3,"room":"r","from":"Sa1","to":"Ca1"}"#).unwrap();
    assert_eq!(id, Some(ClientId::Num(3)));
    assert!(
        matches!(m, ClientMsg::Room { ref room, msg: RoomRequest::Move { .. } } if room == "r")
    );
    let (_, m) = parse(r#"{"type":"create_room","options":{"move_seconds":20}}"#).unwrap();
    let ClientMsg::Lobby(LobbyRequest::CreateRoom { options: Some(o), .. }) = m else { panic!() };
    assert_eq!(o.move_seconds, Some(20), "options are typed when the message arrives");
    let code = |text: &str| parse(text).unwrap_err().1.code;
    assert_eq!(code("{"), ErrorCode::InvalidJson);
    assert_eq!(code("[1]"), ErrorCode::InvalidJson);
    assert_eq!(code(r#"{"type":"fly","id":"x"}"#), ErrorCode::UnknownType);
    assert_eq!(code(r#"{"id":"x"}"#), ErrorCode::UnknownType);
    let (id, e) = parse(r#"{"type":"move","id":"x","room":"r","from":"Sa1"}"#).unwrap_err();
    assert_eq!((id, e.code), (Some(ClientId::Str("x".into())), ErrorCode::BadMessage));
    assert_eq!(code(r#"{"type":"ping","extra":1}"#), ErrorCode::BadMessage);
    assert_eq!(code(r#"{"type":"chat","room":"r","text":"x","colour":1}"#), ErrorCode::BadMessage);
    assert!(parse(r#"{"type":"ping"}"#).is_ok());
    assert_eq!(
        code(r#"{"type":"move","room":"r","from":"Zz9","to":"Ca1"}"#),
        ErrorCode::BadMessage
    );
    assert_eq!(code(r#"{"type":"ping","id":-1}"#), ErrorCode::BadMessage);
    // a room message needs its room, as a string; a lobby message has none
    assert_eq!(code(r#"{"type":"leave_room"}"#), ErrorCode::BadMessage);
    assert_eq!(code(r#"{"type":"leave_room","room":7}"#), ErrorCode::BadMessage);
    assert_eq!(code(r#"{"type":"list_rooms","room":"r"}"#), ErrorCode::BadMessage);
    // options are refused with their own code, whatever is wrong with them
    for bad in [r#"{"colour":1}"#, r#"{"move_seconds":"x"}"#, r#"[1]"#, r#""fast""#] {
        let text = format!(r#"{{"type":"create_room","options":{bad}}}"#);
        assert_eq!(code(&text), ErrorCode::InvalidOptions, "{text}");
    }
}

#[test]
fn error_codes_have_stable_names() {
    assert_eq!(ErrorCode::NotYourTurn.as_str(), "not_your_turn");
    assert_eq!(
        serde_json::to_string(&ErrorCode::ChatRateLimited).unwrap(),
        r#""chat_rate_limited""#
    );
    for rule in [RuleError::GameOver, RuleError::OwnDrawOffer, RuleError::DrawOfferTooSoon] {
        assert_eq!(ErrorCode::from(&rule).as_str(), rule.code());
    }
    let e = crate::error::AppError::conflict(ErrorCode::TooManyRooms, "x");
    assert_eq!(ProtoError::from(e).code, ErrorCode::TooManyRooms);
    assert_eq!(ProtoError::from(crate::error::AppError::internal("db")).code, ErrorCode::Internal);
    // a write refused for a lost lease names the owner (issue 25 §5: `node` and `path` always)
    let lost = crate::error::AppError::Moved { game: 17, node: "b".into() };
    let wire = serde_json::to_value(ServerMsg::error(&None, &ProtoError::from(lost))).unwrap();
    assert_eq!(
        (&wire["code"], &wire["node"], &wire["path"], &wire["game"]),
        (&json!("moved"), &json!("b"), &json!("/ws/n/b"), &json!(17)),
        "{wire}"
    );
}

/// A fenced ```json block of the doc, with the kind its info string names.
struct Block {
    kind: String,
    line: usize,
    values: Vec<Value>,
}

fn doc_blocks(doc: &str) -> Vec<Block> {
    let mut blocks = vec![];
    let mut open: Option<(String, usize, String)> = None;
    for (i, line) in doc.lines().enumerate() {
        match (&mut open, line.trim_start()) {
            (None, l) if l.starts_with("```json") => {
                let kind = l.trim_start_matches("```json").trim().to_string();
                open = Some((kind, i + 1, String::new()));
            }
            (Some(_), l) if l.starts_with("```") => {
                let (kind, line, text) = open.take().unwrap();
                let values: Result<Vec<Value>, _> =
                    serde_json::Deserializer::from_str(&text).into_iter::<Value>().collect();
                let values = values.unwrap_or_else(|e| panic!("protocol.md:{line}: not JSON: {e}"));
                blocks.push(Block { kind, line, values });
            }
            (Some((_, _, text)), _) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, _) => {}
        }
    }
    assert!(open.is_none(), "protocol.md: a ```json block is not closed");
    blocks
}

fn type_of(v: &Value) -> String {
    v["type"].as_str().unwrap_or_default().to_string()
}

#[test]
fn doc_examples() {
    let doc = include_str!("../../../docs/protocol.md");
    let blocks = doc_blocks(doc);
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    for b in &blocks {
        for v in &b.values {
            let at = format!("protocol.md:{} ({})", b.line, v);
            match b.kind.as_str() {
                "client" => {
                    parse(&v.to_string()).unwrap_or_else(|e| panic!("{at}: {:?}", e.1));
                }
                "server" => {
                    let msg: ServerMsg = serde_json::from_value(v.clone())
                        .unwrap_or_else(|e| panic!("{at}: not a server message: {e}"));
                    let back = serde_json::to_value(&msg).unwrap();
                    assert_eq!(&back, v, "{at}: the server would send other fields");
                }
                "event" => {
                    let e: WireEvent = serde_json::from_value(v.clone())
                        .unwrap_or_else(|e| panic!("{at}: not an event: {e}"));
                    assert_eq!(&serde_json::to_value(&e).unwrap(), v, "{at}");
                }
                "view" => {
                    let view: View = serde_json::from_value(v.clone())
                        .unwrap_or_else(|e| panic!("{at}: not a view: {e}"));
                    assert_eq!(&serde_json::to_value(&view).unwrap(), v, "{at}");
                }
                "http" => {}
                other => panic!(
                    "protocol.md:{}: a ```json block must say what it holds \
                     (client, server, event, view or http), not {other:?}",
                    b.line
                ),
            }
            seen.insert((b.kind.clone(), type_of(v)));
        }
    }
    let missing = |kind: &str, names: &[&str]| -> Vec<String> {
        names
            .iter()
            .filter(|n| !seen.contains(&(kind.to_string(), n.to_string())))
            .map(|n| n.to_string())
            .collect()
    };
    assert_eq!(
        missing("client", &ClientMsg::types().collect::<Vec<_>>()),
        Vec::<String>::new(),
        "client messages without an example"
    );
    assert_eq!(
        missing("server", ServerMsg::VARIANTS),
        Vec::<String>::new(),
        "server messages without an example"
    );
    assert_eq!(
        missing("event", LiveEvent::VARIANTS),
        Vec::<String>::new(),
        "live events without an example"
    );
    // every error code is documented in docs/protocol.md or docs/api.md: error/codes.rs
}

#[test]
fn the_doc_check_fails_on_a_wrong_example() {
    let wrong =
        "```json server\n{\"type\":\"presence\",\"room\":\"r\",\"seats\":{\"X\":true}}\n```\n";
    let blocks = doc_blocks(wrong);
    let parsed: Result<ServerMsg, _> = serde_json::from_value(blocks[0].values[0].clone());
    assert!(parsed.is_err(), "a presence with a seat that does not exist must not parse");
    let unlabelled = doc_blocks("```json\n{}\n```\n");
    assert_eq!(unlabelled[0].kind, "");
}

/// Every configuration key the docs name (`section.key` in backticks) exists: a doc once named
/// `live.allowed_origins` for `server.allowed_origins` (issue 19, finding 12).
#[test]
fn config_keys_in_the_docs_exist() {
    let config = serde_json::to_value(crate::config::Config::embedded()).unwrap();
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/");
    let mut checked = 0;
    for doc in ["docs/protocol.md", "docs/api.md", "docs/security.md", "README.md"] {
        let Ok(text) = std::fs::read_to_string(format!("{root}{doc}")) else { continue };
        for quoted in text.split('`').skip(1).step_by(2) {
            let Some((section, key)) = quoted.split_once('.') else { continue };
            let sections = ["server", "database", "auth", "limits", "log", "ladder", "live"];
            let plain =
                key.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
            if !sections.contains(&section) || !plain || key.is_empty() {
                continue;
            }
            assert!(
                config[section].get(key).is_some(),
                "{doc} names the config key `{section}.{key}`, which does not exist"
            );
            checked += 1;
        }
    }
    assert!(checked > 20, "only {checked} keys found: is the scanner broken?");
}
