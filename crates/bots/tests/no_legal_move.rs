//! Issue 31: the standard bot must not walk into "no legal move". A seat whose last movable piece
//! is traded off (or frozen in a headquarters) is eliminated at the start of its next turn
//! (Hidden Front: loses), usually beyond the search's horizon; the evaluation has to know it.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
use siguo_bots::{make_bot_with, Level};
use siguo_rules::{Game, Rank, Seat, SeatSet, Station, Viewer};
use std::time::Duration;

fn st(name: &str) -> Station {
    Station::parse(name).unwrap()
}

/// A legal four-player deployment of `seat` (rules.md §4), as `station: piece` pairs.
fn full_region(seat: char) -> Vec<(String, String)> {
    let pieces = [
        ("a1", '3'),
        ("b1", '2'),
        ("c1", '4'),
        ("d1", '2'),
        ("e1", '3'),
        ("a2", '1'),
        ("c2", '7'),
        ("e2", '1'),
        ("a3", '6'),
        ("b3", '5'),
        ("d3", '7'),
        ("e3", '6'),
        ("a4", '8'),
        ("c4", 'B'),
        ("e4", '9'),
        ("a5", '5'),
        ("b5", '3'),
        ("c5", 'B'),
        ("d5", '4'),
        ("e5", '1'),
        ("a6", 'M'),
        ("b6", 'F'),
        ("c6", 'M'),
        ("d6", 'M'),
        ("e6", '2'),
    ];
    pieces.iter().map(|(at, p)| (format!("{seat}{at}"), format!("{seat}{p}"))).collect()
}

fn game_of(json: serde_json::Value) -> Game {
    let p: siguo_rules::Position = serde_json::from_value(json).unwrap();
    Game::from_position(&p).unwrap()
}

/// Whether `seat` has a piece that can ever move again (movable, not in a headquarters).
fn can_still_move(game: &Game, seat: Seat) -> bool {
    game.stations_of(seat)
        .into_iter()
        .any(|s| !s.is_headquarters() && game.piece_at(s).is_some_and(|p| p.rank.is_movable()))
}

/// South's last movable piece, a bomb, sits safe in a camp (a piece in a camp cannot be
/// attacked) next to East's commander. Bombing the commander wins material but leaves South
/// with nothing that can move: South is eliminated at its next turn, three plies later, with its
/// flag and mines. Moving the bomb to another camp keeps it safe and South in the game.
fn bomb_or_commander() -> Game {
    let mut pieces = serde_json::Map::new();
    for seat in ['N', 'E', 'W'] {
        for (at, p) in full_region(seat) {
            pieces.insert(at, p.into());
        }
    }
    pieces.remove("Ee4");
    pieces.insert("Sc2".into(), "E9".into());
    for (at, p) in [("Sb6", "SF"), ("Sa6", "SM"), ("Sc6", "SM"), ("Sd6", "SM"), ("Sc3", "SB")] {
        pieces.insert(at.into(), p.into());
    }
    game_of(serde_json::json!({"turn": "S", "pieces": pieces, "steps": 80,
                               "options": {"info_mode": "all_open"}}))
}

#[test]
fn the_standard_bot_keeps_its_last_movable_piece_in_the_four_player_game() {
    let game = bomb_or_commander();
    let moves = game.legal_moves();
    assert!(moves.iter().any(|m| m.from == st("Sc3") && m.to == st("Sc2")), "the trade is legal");
    let view = game.view(Viewer::Seats(SeatSet::one(Seat::S)));
    let mut failures = Vec::new();
    for (seed, nodes) in [(1, 400), (2, 3_000), (3, 20_000), (4, 100_000)] {
        let mut bot = make_bot_with(Level::Standard, seed, Duration::from_secs(5), Some(nodes));
        let m = bot.choose(&view, &moves);
        let mut after = game.clone();
        after.apply(&siguo_rules::Action::Move { from: m.from, to: m.to }).unwrap();
        if !can_still_move(&after, Seat::S) {
            failures.push(format!(
                "{nodes} nodes: {} leaves South without a legal move for good ({:?})",
                m.notation(),
                bot.info()
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The same in Hidden Front, where having no legal move loses the game: South's last movable
/// piece is a bomb in a camp next to North's commander.
#[test]
fn the_standard_bot_keeps_its_last_movable_piece_in_hidden_front() {
    let json = serde_json::json!({"variant": "hidden_front", "turn": "S", "steps": 80,
        "quiet_steps": 3,
        "pieces": {"D1": "NF", "A1": "NM", "C1": "NM", "A3": "N5", "E3": "N6", "C8": "N9",
                   "B12": "SF", "A12": "SM", "C12": "SM", "C9": "SB"}});
    let game = game_of(json);
    let moves = game.legal_moves();
    assert!(moves.iter().any(|m| m.from == st("C9") && m.to == st("C8")), "the trade is legal");
    let view = game.view(Viewer::Seats(SeatSet::one(Seat::S)));
    for (seed, nodes) in [(1, 100), (2, 1_000), (3, 10_000)] {
        let mut bot = make_bot_with(Level::Standard, seed, Duration::from_secs(5), Some(nodes));
        let m = bot.choose(&view, &moves);
        assert!(
            m.to != st("C8"),
            "{nodes} nodes: the bomb takes the commander and South has no move left ({:?})",
            bot.info()
        );
    }
}

/// Pieces in a headquarters never move again: with its last movable piece next to its own empty
/// headquarters, the bot does not freeze it there.
#[test]
fn the_standard_bot_does_not_freeze_its_last_movable_piece_in_a_headquarters() {
    let mut pieces = serde_json::Map::new();
    for seat in ['N', 'E', 'W'] {
        for (at, p) in full_region(seat) {
            pieces.insert(at, p.into());
        }
    }
    for (at, p) in [("Sb6", "SF"), ("Sa6", "SM"), ("Sc6", "SM"), ("Se6", "SM"), ("Sd5", "S9")] {
        pieces.insert(at.into(), p.into());
    }
    let game = game_of(serde_json::json!({"turn": "S", "pieces": pieces, "steps": 80}));
    let moves = game.legal_moves();
    assert!(moves.iter().any(|m| m.to == st("Sd6")), "the headquarters is open");
    let view = game.view(Viewer::Seats(SeatSet::one(Seat::S)));
    for (seed, nodes) in [(1, 400), (2, 5_000)] {
        let mut bot = make_bot_with(Level::Standard, seed, Duration::from_secs(5), Some(nodes));
        let m = bot.choose(&view, &moves);
        assert_ne!(m.to, st("Sd6"), "{nodes} nodes: the commander froze itself ({:?})", bot.info());
        assert_eq!(game.piece_at(m.from).map(|p| p.rank), Some(Rank::Commander));
    }
}
