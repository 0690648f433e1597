//! 托管 (let the computer play): in casual and practice games a person may hand a seat to the
//! computer and take it back at any time; a four-player seat whose person is away past the
//! reconnect grace is played by the computer (instead of its turns being skipped) until its
//! person comes back. Ranked games keep their rules (skips, escape); Hidden Front keeps
//! hidden-front.md §5 (away past the grace loses).
//!
//! The computer is a bot of the same machinery as a bot seat: it sits in the table's `bots`,
//! follows the game's events, and thinks on its own seat's view only (`let_bot_think`).
use super::phase::Phase;
use super::{spawn, Answer, Room};
use crate::live::protocol::{now_ms, AckBody, AutoPlay, ErrorCode, ProtoError, WireEvent};
use crate::live::Who;
use siguo_bots::Level;
use siguo_rules::{Event, Seat};

impl Room {
    /// `auto_play`: hand one's seats (or the named one) to the computer, or take them back.
    pub(super) fn auto_play(&mut self, who: &Who, on: bool, seat: Option<Seat>) -> Answer {
        if self.kind.is_ranked() {
            return Err(ProtoError::new(
                ErrorCode::CasualOnly,
                "a ranked game cannot be handed to the computer",
            ));
        }
        if !matches!(self.phase, Phase::Deploying(_) | Phase::Battle(_)) {
            return Err(self.phase.refuse());
        }
        let seats = match seat {
            Some(s) => vec![self.my_seat(who, Some(s))?],
            None => self.held_seats(who)?,
        };
        for s in seats {
            self.need_not_escaped(s)?;
            self.set_auto(s, on.then_some(AutoPlay::Asked));
        }
        self.broadcast_room();
        Ok(Some(AckBody::Empty {}))
    }

    /// Let the computer play a person's seat (`Some`), or stop (`None`). A new computer player
    /// first follows the game's events so far.
    pub(super) fn set_auto(&mut self, seat: Seat, auto: Option<AutoPlay>) {
        let budget = self.live.config().bot_budget_ms;
        let past: Vec<Event> = match auto {
            Some(_) => self.past_game_events(),
            None => vec![],
        };
        let Some(t) = self.phase.table_mut() else { return };
        let Some(p) = t.players[seat].as_mut() else { return };
        if p.occ.account_id().is_none() || p.auto == auto {
            return;
        }
        let was = p.auto;
        p.auto = auto;
        match auto {
            Some(_) if was.is_none() => {
                let mut bot = Some(spawn::make_bot(Level::Standard, budget));
                spawn::observe_all(&mut bot, &past);
                t.bots[seat] = bot;
            }
            Some(_) => {}
            // (a computer thinking now is dropped when it answers: `on_bot_done`)
            None => t.bots[seat] = None,
        }
    }

    /// The engine's events of the current game so far (from the public log).
    fn past_game_events(&self) -> Vec<Event> {
        let read = |raw: &crate::live::protocol::RawEvent| match serde_json::from_str::<WireEvent>(
            raw.get(),
        ) {
            Ok(WireEvent::Game(e)) => Some(e),
            _ => None,
        };
        self.past.iter().filter_map(read).collect()
    }

    /// Whether a bot's answer for `seat` still plays: a bot seat, or a person's seat the
    /// computer plays.
    pub(super) fn computer_plays(&self, seat: Seat) -> bool {
        match self.phase.account_at(seat) {
            None => true,
            Some(_) => self.phase.auto(seat).is_some(),
        }
    }

    /// Casual and practice four-player battles: when each absent person's seat is handed to the
    /// computer (away past the reconnect grace).
    pub(super) fn away_deadlines(&self) -> impl Iterator<Item = (Seat, i64)> + '_ {
        let grace = self.options.reconnect_seconds as i64 * 1000;
        let table = match &self.phase {
            Phase::Battle(b) if !self.kind.is_ranked() && self.variant.is_four_player() => {
                Some(&b.table)
            }
            _ => None,
        };
        table.into_iter().flat_map(move |t| {
            t.players
                .iter()
                .filter_map(|(s, p)| Some((s, p.as_ref()?)))
                .filter(|(_, p)| p.auto.is_none() && p.occ.account_id().is_some())
                .filter_map(move |(s, p)| Some((s, p.offline_since? + grace)))
        })
    }

    /// Seats away past the grace go to the computer; true if any did.
    pub(super) fn hand_away_seats(&mut self) -> bool {
        let now = now_ms();
        let late: Vec<Seat> =
            self.away_deadlines().filter(|(_, at)| *at <= now).map(|(s, _)| s).collect();
        for s in &late {
            self.set_auto(*s, Some(AutoPlay::Away));
        }
        !late.is_empty()
    }

    /// People back online take back the seats the computer played while they were away; true
    /// if any did.
    pub(super) fn take_back_returned(&mut self) -> bool {
        let back: Vec<Seat> = self
            .seats()
            .iter()
            .copied()
            .filter(|s| self.phase.auto(*s) == Some(AutoPlay::Away) && self.online(*s))
            .collect();
        for s in &back {
            self.set_auto(*s, None);
        }
        !back.is_empty()
    }
}
