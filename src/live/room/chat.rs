//! Room chat: everyone subscribed, or one's team (seated people only); limits per person.
use super::{Answer, Room};
use crate::live::protocol::{now_ms, AckBody, ChatMsg, ErrorCode, ProtoError, ServerMsg};
use crate::live::Who;
use std::time::{Duration, Instant};

const CHAT_MAX: usize = 200;
const CHAT_WINDOW: Duration = Duration::from_secs(10);
const CHAT_PER_WINDOW: usize = 5;

impl Room {
    pub(super) fn chat(&mut self, who: &Who, text: String, team: bool) -> Answer {
        let text = text.trim().to_string();
        if text.is_empty() {
            return Err(ProtoError::new(ErrorCode::ChatEmpty, "empty message"));
        }
        if text.chars().count() > CHAT_MAX {
            return Err(ProtoError::new(
                ErrorCode::ChatTooLong,
                format!("at most {CHAT_MAX} characters"),
            ));
        }
        let seat = self.seats_of_account(who.account_id).next();
        let team_of = match (team, seat) {
            (true, _) if !self.variant.is_four_player() => {
                return Err(ProtoError::new(ErrorCode::BadMessage, "this game has no teams"))
            }
            (true, None) => {
                return Err(ProtoError::new(ErrorCode::NotYourSeat, "team chat needs a seat"))
            }
            (true, Some(s)) => Some(s.team()),
            (false, _) => None,
        };
        self.chat_rate(who.account_id)?;
        let msg = ServerMsg::Chat(ChatMsg {
            room: self.id.clone(),
            from: who.name.clone(),
            seat,
            team,
            text,
            at: now_ms(),
        })
        .to_text();
        for s in self.subs.values() {
            let hears = team_of
                .is_none_or(|t| self.seats_of_account(s.who.account_id).any(|x| x.team() == t));
            if hears {
                s.tx.send_text(msg.clone());
            }
        }
        Ok(Some(AckBody::Empty {}))
    }

    /// At most `CHAT_PER_WINDOW` messages per person per `CHAT_WINDOW`.
    fn chat_rate(&mut self, account_id: i64) -> Result<(), ProtoError> {
        let times = self.chat_times.entry(account_id).or_default();
        let now = Instant::now();
        while times.front().is_some_and(|t| now.duration_since(*t) > CHAT_WINDOW) {
            times.pop_front();
        }
        if times.len() >= CHAT_PER_WINDOW {
            return Err(ProtoError::new(
                ErrorCode::ChatRateLimited,
                "too many chat messages; wait a few seconds",
            ));
        }
        times.push_back(now);
        Ok(())
    }
}
