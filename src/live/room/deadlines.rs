//! Time: the one place that computes the room's next wake-up, and what happens then (an
//! empty waiting room closes, the deployment clock ends, a turn times out, an absent ranked
//! player escapes, a finished room closes, a failed write is retried).
use super::phase::Phase;
use super::Room;
use crate::live::protocol::now_ms;
use siguo_rules::{Action, Seat};

/// An empty waiting room closes after this long.
const EMPTY_ROOM_MS: i64 = 60_000;

impl Room {
    /// The earliest time something is due, if anything is.
    pub(super) fn next_wakeup(&self) -> Option<i64> {
        let mut due: Vec<i64> = self.retry_at.into_iter().collect();
        due.extend(self.spectators_told.2);
        due.extend(self.presence_told.1);
        match &self.phase {
            Phase::Waiting(l) => due.extend(l.empty_since.map(|e| e + EMPTY_ROOM_MS)),
            Phase::Deploying(d) => due.push(d.deadline),
            Phase::Battle(b) if self.retry_at.is_none() => due.extend(b.turn_deadline),
            Phase::Battle(_) => {}
            Phase::Finished(f) => due.push(f.at + self.finished_room_ms()),
        }
        due.extend(self.escape_deadlines().map(|(_, at)| at));
        due.extend(self.away_deadlines().map(|(_, at)| at));
        due.into_iter().min()
    }

    fn finished_room_ms(&self) -> i64 {
        self.live.config().finished_room_seconds as i64 * 1000
    }

    /// Ranked, deploying or battle, and Hidden Front's battle (hidden-front.md §5: away 60 s
    /// in a row loses): when each absent seat escapes.
    fn escape_deadlines(&self) -> impl Iterator<Item = (Seat, i64)> + '_ {
        let grace = self.options.reconnect_seconds as i64 * 1000;
        let hidden_front = !self.variant.is_four_player();
        let table = match &self.phase {
            Phase::Deploying(d) if self.kind.is_ranked() => Some(&d.table),
            Phase::Battle(b) if self.kind.is_ranked() || hidden_front => Some(&b.table),
            _ => None,
        };
        table.into_iter().flat_map(move |t| {
            t.players
                .iter()
                .filter_map(|(s, p)| Some((s, p.as_ref()?)))
                .filter(|(_, p)| !p.escaped && p.occ.account_id().is_some())
                .filter_map(move |(s, p)| Some((s, p.offline_since? + grace)))
        })
    }

    pub(super) async fn on_timer(&mut self) {
        let now = now_ms();
        if self.retry_at.is_some_and(|r| r <= now) {
            self.retry_at = None;
        }
        self.send_spectators_if_due(now);
        self.send_presence_if_due(now);
        match &self.phase {
            Phase::Waiting(l) => {
                if l.empty_since.is_some_and(|e| e + EMPTY_ROOM_MS <= now) && self.no_people() {
                    self.close();
                }
            }
            Phase::Deploying(_) | Phase::Battle(_) => self.on_game_timer(now).await,
            Phase::Finished(f) => {
                if f.at + self.finished_room_ms() <= now {
                    self.close();
                }
            }
        }
        self.after_change().await;
    }

    async fn on_game_timer(&mut self, now: i64) {
        if self.hand_away_seats() {
            self.broadcast_room();
        }
        let late: Vec<Seat> =
            self.escape_deadlines().filter(|(_, at)| *at <= now).map(|(s, _)| s).collect();
        if !late.is_empty() {
            if let Err(e) = self.escape(&late).await {
                tracing::error!(room = %self.id, error = ?e, "escape");
                self.retry_at = Some(now + 1000);
                return;
            }
        }
        let gone = match &self.phase {
            Phase::Deploying(d) if d.deadline <= now && self.seat_lost_when_gone() => {
                self.unconfirmed_away(None)
            }
            _ => vec![],
        };
        if !gone.is_empty() {
            if let Err(e) = self.reopen_seats(&gone).await {
                tracing::error!(room = %self.id, error = ?e, "reopen seats");
                self.retry_at = Some(now + 1000);
            }
            return;
        }
        match &mut self.phase {
            Phase::Deploying(d) if d.deadline <= now => {
                d.seats.values_mut().for_each(|x| x.confirmed = true);
                if let Err(e) = self.start_battle().await {
                    tracing::error!(room = %self.id, error = ?e, "start battle");
                    self.retry_at = Some(now + 1000);
                }
            }
            Phase::Battle(b) if b.turn_deadline.is_some_and(|t| t <= now) => {
                if let Err(e) = self.commit(vec![Action::Timeout]).await {
                    tracing::error!(room = %self.id, error = ?e, "timeout");
                    self.retry_at = Some(now + 1000);
                }
            }
            _ => {}
        }
    }
}
