//! Matchmaking queues (排位匹配): `ranked` (four accounts → two teams) and `ranked_dual` (two
//! accounts, each commands both seats of one team).
//!
//! The queues live in memory (a restart empties them; players simply join again). One mutex
//! guards them and is never held across an await. Matching runs when someone joins and on a
//! periodic tick (so rating windows that widen with waiting time are honoured):
//! - candidates are considered oldest first; the oldest waiting player anchors a group;
//! - a group member must be a different account, from a different IP address when the same-IP
//!   rule is on (default), and within the anchor's rating window, which starts at
//!   `rating_window` and widens by `window_growth_per_sec` for every second the anchor waited;
//! - four players are split into the two teams of closest strength (hidden Glicko-2 ratings,
//!   [`glicko::balance_four`]); which team sits N+S and who takes which seat is random.
use super::glicko::{self, Rating};
use super::LadderKind;
use crate::error::{AppError, AppResult};
use chrono::{DateTime, Utc};
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use siguo_rules::Seat;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

/// Section `[ladder]` of the configuration.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct LadderConfig {
    /// Never put two accounts from the same IP address into one ranked game.
    pub same_ip_rule: bool,
    /// Initial rating window around the longest-waiting player (Glicko points).
    pub rating_window: f64,
    /// The window grows by this much per second the anchor has waited.
    pub window_growth_per_sec: f64,
    /// How often the matcher re-runs, milliseconds.
    pub tick_ms: u64,
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig {
            same_ip_rule: true,
            rating_window: 200.0,
            window_growth_per_sec: 25.0,
            tick_ms: 1000,
        }
    }
}

/// A player waiting in a queue.
#[derive(Clone, Debug, PartialEq)]
pub struct Waiting {
    pub account_id: i64,
    pub username: String,
    pub ip: Option<IpAddr>,
    pub rating: Rating,
    pub since: DateTime<Utc>,
}

/// A match found: who sits where. Under `ranked_dual` one account holds both seats of a team.
#[derive(Clone, Debug, PartialEq)]
pub struct Match {
    pub ladder: LadderKind,
    /// Index = `Seat::index()` (N, E, S, W).
    pub seats: [(i64, String); 4],
    /// The players as they waited (to put them back if the game cannot be created).
    pub players: Vec<Waiting>,
}

impl Match {
    /// The distinct accounts of the match.
    pub fn accounts(&self) -> Vec<i64> {
        self.players.iter().map(|w| w.account_id).collect()
    }
    /// Seats held by `account_id`.
    pub fn seats_of(&self, account_id: i64) -> Vec<Seat> {
        Seat::ALL.into_iter().filter(|s| self.seats[s.index()].0 == account_id).collect()
    }
}

/// Where an account stands with the queues (`GET /api/queue/{ladder}`).
#[derive(Clone, Debug, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum QueueStatus {
    /// Not queued.
    Idle,
    /// Waiting since `since`, for `waited_seconds`; `waiting` players are in this queue.
    Waiting { ladder: LadderKind, since: DateTime<Utc>, waited_seconds: i64, waiting: usize },
    /// A match was found and its game is being created.
    Matching { ladder: LadderKind },
    /// The match's game: join its room (`join_room`) to deploy.
    Matched {
        ladder: LadderKind,
        game_id: i64,
        room: String,
        seats: Vec<String>,
        at: DateTime<Utc>,
    },
}

#[derive(Default)]
struct State {
    waiting: HashMap<LadderKind, Vec<Waiting>>,
    /// Last match of each account (game created, or still being created with game_id None).
    matched: HashMap<i64, LastMatch>,
}

/// (ladder, (game id, room id) once created, the account's seats, when)
type LastMatch = (LadderKind, Option<(i64, String)>, Vec<Seat>, DateTime<Utc>);

/// The queues of both ladders.
pub struct Queues {
    config: LadderConfig,
    state: Mutex<State>,
}

impl Queues {
    pub fn new(config: LadderConfig) -> Queues {
        Queues { config, state: Mutex::new(State::default()) }
    }

    pub fn config(&self) -> &LadderConfig {
        &self.config
    }

    /// Join `ladder`'s queue. Joining the queue one already waits in keeps the original time;
    /// waiting in the other ladder's queue is a conflict (`already_queued`). Returns the
    /// matches this join completed.
    pub fn join(&self, ladder: LadderKind, w: Waiting) -> AppResult<Vec<Match>> {
        let mut st = self.state.lock().unwrap();
        for (l, list) in &st.waiting {
            if list.iter().any(|x| x.account_id == w.account_id) {
                if *l == ladder {
                    return Ok(vec![]);
                }
                return Err(AppError::conflict(
                    "already_queued",
                    format!("you are already waiting in the {} queue; leave it first", l.as_str()),
                ));
            }
        }
        if let Some((_, None, _, _)) = st.matched.get(&w.account_id) {
            return Err(AppError::conflict("match_pending", "your match is being created"));
        }
        st.matched.remove(&w.account_id);
        st.waiting.entry(ladder).or_default().push(w);
        Ok(self.find_matches(&mut st, ladder, Utc::now()))
    }

    /// Leave `ladder`'s queue; `true` if the account was waiting there.
    pub fn leave(&self, ladder: LadderKind, account_id: i64) -> bool {
        let mut st = self.state.lock().unwrap();
        let list = st.waiting.entry(ladder).or_default();
        let before = list.len();
        list.retain(|w| w.account_id != account_id);
        before != list.len()
    }

    pub fn status(&self, account_id: i64) -> QueueStatus {
        let st = self.state.lock().unwrap();
        let now = Utc::now();
        for (l, list) in &st.waiting {
            if let Some(w) = list.iter().find(|w| w.account_id == account_id) {
                return QueueStatus::Waiting {
                    ladder: *l,
                    since: w.since,
                    waited_seconds: (now - w.since).num_seconds().max(0),
                    waiting: list.len(),
                };
            }
        }
        match st.matched.get(&account_id) {
            Some((l, None, _, _)) => QueueStatus::Matching { ladder: *l },
            Some((l, Some((game_id, room)), seats, at)) => QueueStatus::Matched {
                ladder: *l,
                game_id: *game_id,
                room: room.clone(),
                seats: seats.iter().map(|s| s.letter().to_string()).collect(),
                at: *at,
            },
            None => QueueStatus::Idle,
        }
    }

    /// Run the matcher on both queues (the periodic tick).
    pub fn tick(&self) -> Vec<Match> {
        let mut st = self.state.lock().unwrap();
        let now = Utc::now();
        let mut out = self.find_matches(&mut st, LadderKind::Ranked, now);
        out.extend(self.find_matches(&mut st, LadderKind::RankedDual, now));
        out
    }

    /// The match's game exists: remember it for the players' status.
    pub fn matched(&self, m: &Match, game_id: i64, room: &str) {
        let mut st = self.state.lock().unwrap();
        let now = Utc::now();
        for id in m.accounts() {
            st.matched
                .insert(id, (m.ladder, Some((game_id, room.to_string())), m.seats_of(id), now));
        }
    }

    /// The match's game could not be created: its players go back to the front of the queue.
    pub fn requeue(&self, m: Match) {
        let mut st = self.state.lock().unwrap();
        for id in m.accounts() {
            st.matched.remove(&id);
        }
        let list = st.waiting.entry(m.ladder).or_default();
        let mut players = m.players;
        players.append(list);
        players.sort_by_key(|w| w.since);
        *list = players;
    }

    fn compatible(&self, a: &Waiting, b: &Waiting) -> bool {
        a.account_id != b.account_id
            && !(self.config.same_ip_rule && a.ip.is_some() && a.ip == b.ip)
    }

    fn find_matches(&self, st: &mut State, ladder: LadderKind, now: DateTime<Utc>) -> Vec<Match> {
        let size = match ladder {
            LadderKind::Ranked => 4,
            LadderKind::RankedDual => 2,
        };
        let mut found = vec![];
        loop {
            let list = st.waiting.entry(ladder).or_default();
            list.sort_by_key(|w| w.since);
            let Some(group) = self.find_group(list, size, now) else { break };
            let mut players = vec![];
            for &i in group.iter().rev() {
                players.push(list.remove(i));
            }
            players.reverse();
            let m = seat(ladder, players);
            for id in m.accounts() {
                st.matched.insert(id, (ladder, None, m.seats_of(id), now));
            }
            found.push(m);
        }
        found
    }

    /// Indexes (ascending) of a compatible group, anchored at the oldest player that has one.
    fn find_group(&self, list: &[Waiting], size: usize, now: DateTime<Utc>) -> Option<Vec<usize>> {
        for (a, anchor) in list.iter().enumerate() {
            let waited = (now - anchor.since).num_milliseconds().max(0) as f64 / 1000.0;
            let window = self.config.rating_window + self.config.window_growth_per_sec * waited;
            let mut group = vec![a];
            for (j, cand) in list.iter().enumerate().skip(a + 1) {
                if (cand.rating.rating - anchor.rating.rating).abs() <= window
                    && group.iter().all(|&g| self.compatible(&list[g], cand))
                {
                    group.push(j);
                    if group.len() == size {
                        return Some(group);
                    }
                }
            }
        }
        None
    }
}

/// Assign seats: balanced teams, random sides and seats.
fn seat(ladder: LadderKind, mut players: Vec<Waiting>) -> Match {
    let mut rng = rand::rng();
    let who = |w: &Waiting| (w.account_id, w.username.clone());
    let seats = match ladder {
        LadderKind::RankedDual => {
            players.shuffle(&mut rng);
            let (a, b) = (who(&players[0]), who(&players[1]));
            [a.clone(), b.clone(), a, b]
        }
        LadderKind::Ranked => {
            let r = [players[0].rating, players[1].rating, players[2].rating, players[3].rating];
            let mut teams = glicko::balance_four(r);
            teams.shuffle(&mut rng);
            for t in &mut teams {
                t.shuffle(&mut rng);
            }
            // teams[0] sits N+S, teams[1] sits E+W.
            [
                who(&players[teams[0][0]]),
                who(&players[teams[1][0]]),
                who(&players[teams[0][1]]),
                who(&players[teams[1][1]]),
            ]
        }
    };
    Match { ladder, seats, players }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn w(id: i64, ip: u8, rating: f64, ago_secs: i64) -> Waiting {
        Waiting {
            account_id: id,
            username: format!("p{id}"),
            ip: Some(IpAddr::from([10, 0, 0, ip])),
            rating: Rating { rating, ..Rating::default() },
            since: Utc::now() - Duration::seconds(ago_secs),
        }
    }

    #[test]
    fn four_join_ranked_and_are_matched_into_two_balanced_teams() {
        let q = Queues::new(LadderConfig::default());
        assert!(q.join(LadderKind::Ranked, w(1, 1, 1700.0, 0)).unwrap().is_empty());
        assert!(q.join(LadderKind::Ranked, w(2, 2, 1690.0, 0)).unwrap().is_empty());
        assert!(q.join(LadderKind::Ranked, w(3, 3, 1510.0, 0)).unwrap().is_empty());
        assert!(matches!(q.status(3), QueueStatus::Waiting { waiting: 3, .. }));
        let m = q.join(LadderKind::Ranked, w(4, 4, 1500.0, 0)).unwrap();
        assert_eq!(m.len(), 1);
        let m = &m[0];
        let mut ids: Vec<i64> = m.seats.iter().map(|s| s.0).collect();
        ids.sort();
        assert_eq!(ids, vec![1, 2, 3, 4]);
        // the two strong players are on different teams
        let team_of = |id: i64| m.seats_of(id)[0].team();
        assert_ne!(team_of(1), team_of(2));
        assert_ne!(team_of(3), team_of(4));
        assert!(matches!(q.status(1), QueueStatus::Matching { .. }));
        q.matched(m, 17, "g17");
        match q.status(4) {
            QueueStatus::Matched { game_id: 17, room, seats, .. } => {
                assert_eq!(room, "g17");
                assert_eq!(seats.len(), 1);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn dual_needs_two_and_gives_each_a_whole_team() {
        let q = Queues::new(LadderConfig::default());
        assert!(q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap().is_empty());
        let m = q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 0)).unwrap().remove(0);
        assert_eq!(m.seats[0].0, m.seats[2].0);
        assert_eq!(m.seats[1].0, m.seats[3].0);
        assert_ne!(m.seats[0].0, m.seats[1].0);
        assert_eq!(m.seats_of(1).len(), 2);
    }

    #[test]
    fn same_ip_players_are_never_matched_together_unless_the_rule_is_off() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 9, 1500.0, 0)).unwrap();
        assert!(q.join(LadderKind::RankedDual, w(2, 9, 1500.0, 0)).unwrap().is_empty());
        let m = q.join(LadderKind::RankedDual, w(3, 3, 1500.0, 0)).unwrap();
        assert_eq!(m.len(), 1);
        let mut ids = m[0].accounts();
        ids.sort();
        assert_eq!(ids, vec![1, 3]);
        assert!(matches!(q.status(2), QueueStatus::Waiting { .. }));

        let q = Queues::new(LadderConfig { same_ip_rule: false, ..LadderConfig::default() });
        q.join(LadderKind::RankedDual, w(1, 9, 1500.0, 0)).unwrap();
        assert_eq!(q.join(LadderKind::RankedDual, w(2, 9, 1500.0, 0)).unwrap().len(), 1);
    }

    #[test]
    fn leaving_and_double_joining() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::Ranked, w(1, 1, 1500.0, 5)).unwrap();
        let since = match q.status(1) {
            QueueStatus::Waiting { since, waited_seconds, .. } => {
                assert!(waited_seconds >= 5);
                since
            }
            other => panic!("{other:?}"),
        };
        // joining again keeps the original time
        q.join(LadderKind::Ranked, w(1, 1, 1500.0, 0)).unwrap();
        assert!(
            matches!(q.status(1), QueueStatus::Waiting { since: s, waiting: 1, .. } if s == since)
        );
        let e = q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap_err();
        assert_eq!(e.code(), "already_queued");
        assert!(!q.leave(LadderKind::RankedDual, 1));
        assert!(q.leave(LadderKind::Ranked, 1));
        assert_eq!(q.status(1), QueueStatus::Idle);
        assert!(!q.leave(LadderKind::Ranked, 1));
    }

    #[test]
    fn rating_window_widens_with_waiting_time() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap();
        assert!(q.join(LadderKind::RankedDual, w(2, 2, 2000.0, 0)).unwrap().is_empty());
        assert!(q.tick().is_empty());
        let q = Queues::new(LadderConfig::default());
        // waited 20 s: window 200 + 25 * 20 = 700
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 20)).unwrap();
        assert_eq!(q.join(LadderKind::RankedDual, w(2, 2, 2000.0, 0)).unwrap().len(), 1);
    }

    #[test]
    fn requeued_players_keep_their_place() {
        let q = Queues::new(LadderConfig::default());
        q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 30)).unwrap();
        let m = q.join(LadderKind::RankedDual, w(2, 2, 1500.0, 10)).unwrap().remove(0);
        assert_eq!(
            q.join(LadderKind::RankedDual, w(1, 1, 1500.0, 0)).unwrap_err().code(),
            "match_pending"
        );
        q.requeue(m);
        assert!(
            matches!(q.status(1), QueueStatus::Waiting { waited_seconds, .. } if waited_seconds >= 30)
        );
        assert_eq!(q.tick().len(), 1);
    }
}
