//! The points table of `shared/spec/ladder.md`, as pure functions.
//!
//! | result for the player | points | recorded as |
//! |---|---|---|
//! | its team won | +3 | `win` |
//! | draw | +1 | `draw` |
//! | its team lost | 0 | `loss` |
//! | it surrendered | 0 | `surrender` |
//! | it escaped | −2 | `escape` |
//!
//! **Overrides.** Surrender and escape override the team result: a player who surrendered or
//! escaped gets that line even if its partner goes on to win (or the game ends in a draw).
//!
//! **One result per (game, account), precisely.** An account's line is decided over the set of
//! seats it controls in that game (one seat in `ranked`, both seats of its team in `ranked_dual`):
//! 1. if **any** of its seats escaped → `escape` (−2);
//! 2. else if **any** of its seats surrendered → `surrender` (0);
//! 3. else its team's result: `win` (+3), `draw` (+1) or `loss` (0).
//!
//! Escape ranks above surrender because it is final and the heavier penalty: a dual-control
//! player who surrendered one seat and then left the game with the other has escaped. (Live
//! play marks a seat escaped only when it leaves or exceeds the reconnect grace; if both flags
//! are set on one seat, escape applies.)
//!
//! **Whether a game counts** ([`counting_ladder`]): its kind is `ranked` or `ranked_dual`, it
//! reached the battle phase and ended (won or drawn), no seat is a bot, every seat is a
//! registered (non-guest) account, and the seating is the ladder's: `ranked` has four different
//! accounts; `ranked_dual` has one account on both seats of each team, two different accounts.
use super::{FinishedGame, LadderKind};
use serde::{Deserialize, Serialize};
use siguo_rules::{Seat, Status, Team};

/// The line of the points table an account gets for one game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Win,
    Draw,
    Loss,
    /// surrender-loss
    Surrender,
    /// escape-loss
    Escape,
}

impl Outcome {
    pub const ALL: [Outcome; 5] =
        [Outcome::Win, Outcome::Draw, Outcome::Loss, Outcome::Surrender, Outcome::Escape];

    /// Ladder points for this line (a four-player ladder's; Hidden Front has none).
    pub fn points(self) -> i32 {
        match self {
            Outcome::Win => 3,
            Outcome::Draw => 1,
            Outcome::Loss => 0,
            Outcome::Surrender => 0,
            Outcome::Escape => -2,
        }
    }

    /// As stored in `ladder_results.outcome`.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Draw => "draw",
            Outcome::Loss => "loss",
            Outcome::Surrender => "surrender",
            Outcome::Escape => "escape",
        }
    }

    pub fn parse(s: &str) -> Option<Outcome> {
        Outcome::ALL.into_iter().find(|o| o.as_str() == s)
    }

    /// Glicko-2 score of the player's own performance: a surrender or an escape is a loss
    /// (the player gave up), otherwise the team result.
    pub fn score(self) -> f64 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Draw => 0.5,
            Outcome::Loss | Outcome::Surrender | Outcome::Escape => 0.0,
        }
    }
}

/// Why a finished game does not count for the ladder (not an error: casual games simply don't).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotCounted {
    /// `casual`, `practice` or anything else that is not a ranked kind.
    NotRanked,
    /// Aborted during deployment.
    NoBattle,
    /// The status is still `Ongoing` (aborted game).
    NotFinished,
    /// A bot sat in a seat.
    Bot,
    /// A guest (or an empty seat) sat in a seat.
    Guest,
    /// The seating does not fit the ladder (e.g. one account on two seats in `ranked`).
    BadSeating,
}

/// The result of one account in a counting game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerResult {
    pub account_id: i64,
    pub ladder: LadderKind,
    pub team: Team,
    /// The seats this account controlled (one, or two under dual control).
    pub seats: Vec<Seat>,
    pub outcome: Outcome,
}

impl PlayerResult {
    /// The points this result gives (none on Hidden Front's rated ladder).
    pub fn points(&self) -> i32 {
        match self.ladder.is_rated() {
            true => 0,
            false => self.outcome.points(),
        }
    }
}

/// The team's result, before any override.
pub fn team_outcome(status: Status, team: Team) -> Option<Outcome> {
    match status {
        Status::Ongoing => None,
        Status::Won { winner, .. } if winner == team => Some(Outcome::Win),
        Status::Won { .. } => Some(Outcome::Loss),
        Status::Draw { .. } => Some(Outcome::Draw),
        // Hidden Front games never count for the four-player ladders.
        Status::SeatWon { .. } => None,
    }
}

/// The line for an account controlling `seats` (all of one team), see the module docs.
pub fn account_outcome(game: &FinishedGame, seats: &[Seat]) -> Option<Outcome> {
    let team = seats.first()?.team();
    let escaped = seats.iter().any(|&s| game.seats[s].escaped);
    let surrendered = seats.iter().any(|&s| game.seats[s].surrendered);
    outcome_from_flags(game.status, team, surrendered, escaped)
}

/// The line for a player of `team` given whether any of its seats surrendered / escaped.
pub fn outcome_from_flags(
    status: Status,
    team: Team,
    surrendered: bool,
    escaped: bool,
) -> Option<Outcome> {
    if escaped {
        Some(Outcome::Escape)
    } else if surrendered {
        Some(Outcome::Surrender)
    } else {
        team_outcome(status, team)
    }
}

/// A Hidden Front player's line (one seat against one seat): an escape, then a surrender, then
/// the game's result for its seat (a third timeout is a plain loss).
pub fn seat_outcome(
    status: Status,
    seat: Seat,
    surrendered: bool,
    escaped: bool,
) -> Option<Outcome> {
    match status.is_winner(seat) {
        _ if escaped => Some(Outcome::Escape),
        Some(false) if surrendered => Some(Outcome::Surrender),
        Some(true) => Some(Outcome::Win),
        Some(false) => Some(Outcome::Loss),
        None => (status != Status::Ongoing).then_some(Outcome::Draw),
    }
}

/// The seats a game of `ladder` is played on.
fn ladder_seats(ladder: LadderKind) -> &'static [Seat] {
    match ladder {
        LadderKind::HfRanked => &[Seat::S, Seat::N],
        LadderKind::Ranked | LadderKind::RankedDual => &Seat::ALL,
    }
}

/// Which ladder a finished game counts for, or why it does not.
pub fn counting_ladder(game: &FinishedGame) -> Result<LadderKind, NotCounted> {
    let ladder = LadderKind::parse(game.kind.as_str()).ok_or(NotCounted::NotRanked)?;
    if !game.reached_battle {
        return Err(NotCounted::NoBattle);
    }
    if game.status == Status::Ongoing {
        return Err(NotCounted::NotFinished);
    }
    for s in ladder_seats(ladder).iter().map(|&seat| &game.seats[seat]) {
        if s.bot.is_some() {
            return Err(NotCounted::Bot);
        }
        if s.guest || s.account_id.is_none() {
            return Err(NotCounted::Guest);
        }
    }
    let acc = |seat: Seat| game.seats[seat].account_id;
    let ok = match ladder {
        LadderKind::Ranked => {
            let ids: Vec<i64> = Seat::ALL.iter().filter_map(|&s| acc(s)).collect();
            (0..4).all(|i| (i + 1..4).all(|j| ids[i] != ids[j]))
        }
        LadderKind::RankedDual => {
            acc(Seat::N) == acc(Seat::S)
                && acc(Seat::E) == acc(Seat::W)
                && acc(Seat::N) != acc(Seat::E)
        }
        LadderKind::HfRanked => {
            acc(Seat::S) != acc(Seat::N)
                && [Seat::E, Seat::W].iter().all(|&s| game.seats[s].account_id.is_none())
        }
    };
    if ok {
        Ok(ladder)
    } else {
        Err(NotCounted::BadSeating)
    }
}

/// Every account's result in a counting game (one entry per account, ordered by first seat),
/// or why the game does not count.
pub fn results(game: &FinishedGame) -> Result<Vec<PlayerResult>, NotCounted> {
    let ladder = counting_ladder(game)?;
    let mut out: Vec<PlayerResult> = Vec::with_capacity(4);
    for &seat in ladder_seats(ladder) {
        let Some(id) = game.seats[seat].account_id else { continue };
        match out.iter_mut().find(|r| r.account_id == id) {
            Some(r) => r.seats.push(seat),
            None => out.push(PlayerResult {
                account_id: id,
                ladder,
                team: seat.team(),
                seats: vec![seat],
                outcome: Outcome::Loss,
            }),
        }
    }
    for r in &mut out {
        r.outcome = match ladder {
            LadderKind::HfRanked => {
                let s = &game.seats[r.seats[0]];
                seat_outcome(game.status, r.seats[0], s.surrendered, s.escaped)
            }
            _ => account_outcome(game, &r.seats),
        }
        .ok_or(NotCounted::NotFinished)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ladder::FinishedSeat;
    use crate::live::GameKind;
    use siguo_bots::Level;
    use siguo_rules::{BySeat, DrawReason, WinReason};

    const NS_WINS: Status = Status::Won { winner: Team::NS, reason: WinReason::Elimination };
    const EW_WINS: Status = Status::Won { winner: Team::EW, reason: WinReason::Elimination };
    const DRAW: Status = Status::Draw { reason: DrawReason::StepLimit };

    fn seated(ids: [i64; 4]) -> BySeat<FinishedSeat> {
        let ids = BySeat::from(ids);
        BySeat::from_fn(|seat| FinishedSeat {
            seat,
            account_id: Some(ids[seat]),
            guest: false,
            bot: None,
            escaped: false,
            surrendered: false,
        })
    }

    /// Ranked game with accounts N=1, E=2, S=3, W=4.
    fn ranked(status: Status) -> FinishedGame {
        FinishedGame {
            game_id: 7,
            kind: GameKind::Ranked,
            seats: seated([1, 2, 3, 4]),
            status,
            reached_battle: true,
        }
    }

    /// Dual game: account 1 holds N+S, account 2 holds E+W.
    fn dual(status: Status) -> FinishedGame {
        FinishedGame {
            game_id: 8,
            kind: GameKind::RankedDual,
            seats: seated([1, 2, 1, 2]),
            status,
            reached_battle: true,
        }
    }

    fn outcome_of(g: &FinishedGame, id: i64) -> Outcome {
        results(g).unwrap().into_iter().find(|r| r.account_id == id).unwrap().outcome
    }

    fn all(g: &FinishedGame) -> Vec<(i64, Outcome, i32)> {
        results(g).unwrap().into_iter().map(|r| (r.account_id, r.outcome, r.points())).collect()
    }

    #[test]
    fn points_table() {
        assert_eq!(Outcome::Win.points(), 3);
        assert_eq!(Outcome::Draw.points(), 1);
        assert_eq!(Outcome::Loss.points(), 0);
        assert_eq!(Outcome::Surrender.points(), 0);
        assert_eq!(Outcome::Escape.points(), -2);
        for o in Outcome::ALL {
            assert_eq!(Outcome::parse(o.as_str()), Some(o));
        }
        assert_eq!(Outcome::parse("lose"), None);
    }

    #[test]
    fn win_and_loss() {
        assert_eq!(
            all(&ranked(NS_WINS)),
            vec![
                (1, Outcome::Win, 3),
                (2, Outcome::Loss, 0),
                (3, Outcome::Win, 3),
                (4, Outcome::Loss, 0)
            ]
        );
        assert_eq!(
            all(&ranked(EW_WINS)),
            vec![
                (1, Outcome::Loss, 0),
                (2, Outcome::Win, 3),
                (3, Outcome::Loss, 0),
                (4, Outcome::Win, 3)
            ]
        );
    }

    #[test]
    fn draw_gives_everyone_one_point() {
        let g = ranked(Status::Draw { reason: DrawReason::Agreement });
        assert!(all(&g).iter().all(|&(_, o, p)| o == Outcome::Draw && p == 1));
        assert!(all(&ranked(DRAW)).iter().all(|&(_, o, p)| o == Outcome::Draw && p == 1));
    }

    #[test]
    fn surrender_then_partner_wins() {
        let mut g = ranked(NS_WINS);
        g.seats[Seat::N].surrendered = true;
        assert_eq!(
            all(&g),
            vec![
                (1, Outcome::Surrender, 0),
                (2, Outcome::Loss, 0),
                (3, Outcome::Win, 3),
                (4, Outcome::Loss, 0)
            ]
        );
    }

    #[test]
    fn escape_then_partner_wins() {
        let mut g = ranked(EW_WINS);
        g.seats[Seat::W].escaped = true;
        assert_eq!(
            all(&g),
            vec![
                (1, Outcome::Loss, 0),
                (2, Outcome::Win, 3),
                (3, Outcome::Loss, 0),
                (4, Outcome::Escape, -2)
            ]
        );
    }

    #[test]
    fn surrender_and_escape_override_a_draw_and_a_loss() {
        let mut g = ranked(DRAW);
        g.seats[Seat::E].surrendered = true;
        g.seats[Seat::S].escaped = true;
        assert_eq!(
            all(&g),
            vec![
                (1, Outcome::Draw, 1),
                (2, Outcome::Surrender, 0),
                (3, Outcome::Escape, -2),
                (4, Outcome::Draw, 1)
            ]
        );
        let mut g = ranked(NS_WINS);
        g.seats[Seat::E].escaped = true;
        assert_eq!(outcome_of(&g, 2), Outcome::Escape);
    }

    #[test]
    fn both_of_a_team_surrendering() {
        let mut g = ranked(NS_WINS);
        g.seats[Seat::E].surrendered = true;
        g.seats[Seat::W].surrendered = true;
        assert_eq!(
            all(&g),
            vec![
                (1, Outcome::Win, 3),
                (2, Outcome::Surrender, 0),
                (3, Outcome::Win, 3),
                (4, Outcome::Surrender, 0)
            ]
        );
    }

    #[test]
    fn escape_beats_surrender_on_one_seat() {
        let mut g = ranked(EW_WINS);
        g.seats[Seat::N].surrendered = true;
        g.seats[Seat::N].escaped = true;
        assert_eq!(outcome_of(&g, 1), Outcome::Escape);
    }

    #[test]
    fn dual_control_plain_results() {
        assert_eq!(all(&dual(NS_WINS)), vec![(1, Outcome::Win, 3), (2, Outcome::Loss, 0)]);
        assert_eq!(all(&dual(EW_WINS)), vec![(1, Outcome::Loss, 0), (2, Outcome::Win, 3)]);
        assert_eq!(all(&dual(DRAW)), vec![(1, Outcome::Draw, 1), (2, Outcome::Draw, 1)]);
        let r = results(&dual(DRAW)).unwrap();
        assert_eq!(r[0].seats, vec![Seat::N, Seat::S]);
        assert_eq!(r[1].seats, vec![Seat::E, Seat::W]);
        assert!(r.iter().all(|r| r.ladder == LadderKind::RankedDual));
    }

    #[test]
    fn dual_control_one_seat_surrendered_counts_even_if_the_team_wins() {
        let mut g = dual(NS_WINS);
        g.seats[Seat::S].surrendered = true;
        assert_eq!(all(&g), vec![(1, Outcome::Surrender, 0), (2, Outcome::Loss, 0)]);
    }

    #[test]
    fn dual_control_one_seat_escaped_counts_even_if_the_team_wins() {
        let mut g = dual(EW_WINS);
        g.seats[Seat::E].escaped = true;
        assert_eq!(all(&g), vec![(1, Outcome::Loss, 0), (2, Outcome::Escape, -2)]);
    }

    #[test]
    fn dual_control_surrender_on_one_seat_and_escape_on_the_other_is_an_escape() {
        let mut g = dual(EW_WINS);
        g.seats[Seat::N].surrendered = true;
        g.seats[Seat::S].escaped = true;
        assert_eq!(outcome_of(&g, 1), Outcome::Escape);
    }

    #[test]
    fn games_that_do_not_count() {
        for kind in [GameKind::Casual, GameKind::Practice] {
            let mut g = ranked(NS_WINS);
            g.kind = kind;
            assert_eq!(results(&g), Err(NotCounted::NotRanked), "{kind:?}");
        }
        let mut g = ranked(NS_WINS);
        g.reached_battle = false;
        assert_eq!(counting_ladder(&g), Err(NotCounted::NoBattle));
        assert_eq!(counting_ladder(&ranked(Status::Ongoing)), Err(NotCounted::NotFinished));
        let mut g = ranked(NS_WINS);
        g.seats[Seat::S].account_id = None;
        g.seats[Seat::S].bot = Some(Level::Greedy);
        assert_eq!(counting_ladder(&g), Err(NotCounted::Bot));
        let mut g = dual(NS_WINS);
        g.seats[Seat::E].guest = true;
        assert_eq!(counting_ladder(&g), Err(NotCounted::Guest));
        let mut g = ranked(NS_WINS);
        g.seats[Seat::W].account_id = None;
        assert_eq!(counting_ladder(&g), Err(NotCounted::Guest));
    }

    /// A Hidden Front ranked game: account 1 on S, 2 on N, E and W empty.
    fn hf(status: Status) -> FinishedGame {
        let mut seats = seated([0, 0, 1, 2]);
        seats[Seat::N].account_id = Some(2);
        for s in [Seat::E, Seat::W] {
            seats[s].account_id = None;
        }
        FinishedGame { game_id: 9, kind: GameKind::HfRanked, seats, status, reached_battle: true }
    }

    #[test]
    fn hidden_front_results() {
        let s_wins = Status::SeatWon { winner: Seat::S, reason: WinReason::FlagCaptured };
        assert_eq!(all(&hf(s_wins)), vec![(1, Outcome::Win, 0), (2, Outcome::Loss, 0)]);
        let draw = Status::Draw { reason: DrawReason::NoCombat };
        assert_eq!(all(&hf(draw)), vec![(1, Outcome::Draw, 0), (2, Outcome::Draw, 0)]);
        let timeouts = Status::SeatWon { winner: Seat::N, reason: WinReason::Timeouts };
        assert_eq!(all(&hf(timeouts)), vec![(1, Outcome::Loss, 0), (2, Outcome::Win, 0)]);
        let mut g = hf(Status::SeatWon { winner: Seat::N, reason: WinReason::Surrender });
        g.seats[Seat::S].surrendered = true;
        assert_eq!(all(&g), vec![(1, Outcome::Surrender, 0), (2, Outcome::Win, 0)]);
        g.seats[Seat::S].escaped = true;
        assert_eq!(all(&g), vec![(1, Outcome::Escape, 0), (2, Outcome::Win, 0)]);
        assert!(results(&g).unwrap().iter().all(|r| r.ladder == LadderKind::HfRanked));
        // one account on both seats, or a guest, does not count
        let mut g = hf(s_wins);
        g.seats[Seat::N].account_id = Some(1);
        assert_eq!(counting_ladder(&g), Err(NotCounted::BadSeating));
        let mut g = hf(s_wins);
        g.seats[Seat::N].guest = true;
        assert_eq!(counting_ladder(&g), Err(NotCounted::Guest));
    }

    #[test]
    fn seating_must_fit_the_ladder() {
        // ranked with one account on two seats
        let mut g = ranked(NS_WINS);
        g.seats[Seat::S].account_id = Some(1);
        assert_eq!(counting_ladder(&g), Err(NotCounted::BadSeating));
        // ranked_dual with four different accounts, or one account on both teams
        let mut g = ranked(NS_WINS);
        g.kind = GameKind::RankedDual;
        assert_eq!(counting_ladder(&g), Err(NotCounted::BadSeating));
        let g = FinishedGame { seats: seated([1, 1, 1, 1]), ..dual(NS_WINS) };
        assert_eq!(counting_ladder(&g), Err(NotCounted::BadSeating));
        assert_eq!(counting_ladder(&dual(NS_WINS)), Ok(LadderKind::RankedDual));
        assert_eq!(counting_ladder(&ranked(NS_WINS)), Ok(LadderKind::Ranked));
    }
}
