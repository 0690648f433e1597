//! The battle: moves, surrender, draws, escapes and bots. Every change goes through
//! [`Room::commit`]: applied to a copy of the game, committed to the database, then published.
use super::phase::{Finished, Phase};
use super::{Answer, Cmd, Room};
use crate::error::AppError;
use crate::live::finish::{FinishedGame, FinishedSeat, ResultsSlot};
use crate::live::protocol::{
    now_ms, AckBody, ErrorCode, GameResults, LiveEvent, ProtoError, WireEvent,
};
use crate::live::store;
use crate::live::{SeatOccupant, Who};
use siguo_bots::Bot;
use siguo_rules::{
    Action, BySeat, ElimReason, Event, Game, Move, RuleError, Seat, SeatSet, Station, Status,
    Viewer, WinReason,
};

impl Room {
    fn version(&self) -> Answer {
        Ok(Some(AckBody::Version { v: self.history.v() }))
    }

    pub(super) async fn on_move(&mut self, who: &Who, from: Station, to: Station) -> Answer {
        let turn = self.phase.battle()?.game.turn().ok_or(RuleError::GameOver)?;
        let mine = self.held_seats(who)?;
        if !mine.contains(&turn) {
            return Err(RuleError::NotYourTurn.into());
        }
        self.need_not_escaped(turn)?;
        self.commit(vec![Action::Move { from, to }]).await?;
        self.version()
    }

    pub(super) async fn surrender(&mut self, who: &Who, seat: Option<Seat>) -> Answer {
        let game = &self.phase.battle()?.game;
        let seats: Vec<Seat> = match seat {
            Some(s) => vec![self.my_seat(who, Some(s))?],
            None => {
                let live: Vec<Seat> =
                    self.held_seats(who)?.into_iter().filter(|s| !game.is_eliminated(*s)).collect();
                if live.is_empty() {
                    return Err(RuleError::SeatEliminated.into());
                }
                live
            }
        };
        for s in &seats {
            self.need_not_escaped(*s)?;
        }
        self.commit(seats.into_iter().map(|seat| Action::Surrender { seat }).collect()).await?;
        self.version()
    }

    /// Offering from one seat also accepts for the partner seat under dual control.
    pub(super) async fn offer_draw(&mut self, who: &Who, seat: Option<Seat>) -> Answer {
        let game = &self.phase.battle()?.game;
        let seat = match seat {
            Some(s) => self.my_seat(who, Some(s))?,
            None => {
                let mine = self.held_seats(who)?;
                mine.iter().copied().find(|s| !game.is_eliminated(*s)).unwrap_or(mine[0])
            }
        };
        self.need_not_escaped(seat)?;
        let mut actions = vec![Action::OfferDraw { seat }];
        let p = seat.partner();
        let dual =
            self.variant.is_four_player() && self.seats_of_account(who.account_id).any(|s| s == p);
        if dual && !game.is_eliminated(p) {
            actions.push(Action::AcceptDraw { seat: p });
        }
        // the bots' answers go in the same update as the offer
        let answers = self.bot_answers_draw(seat, &actions)?;
        actions.extend(answers);
        self.commit(actions).await?;
        self.version()
    }

    /// The bots at the table answer a draw offer at once (each accepts when it judges its side's
    /// position lost, `Bot::accept_draw`): Hidden Front's one opponent, or in the four-player
    /// game every other bot seat in play, in seat order, until one declines (rules.md §7: a draw
    /// when every other live player accepts). A bot that is thinking does not answer; the offer
    /// stays open for it until it lapses. The bots judge the game as it is once `offer` (the
    /// offer's own actions) is applied; their answers are committed with it.
    fn bot_answers_draw(
        &mut self,
        offerer: Seat,
        offer: &[Action],
    ) -> Result<Vec<Action>, ProtoError> {
        let seats = self.variant.seats();
        let b = self.phase.battle_mut()?;
        let mut game = b.game.clone();
        for a in offer {
            game.apply(a)?;
        }
        if game.draw_offer().is_none() || game.is_over() {
            return Ok(vec![]);
        }
        let mut answers = vec![];
        for &seat in seats.iter().filter(|&&s| s != offerer && game.in_play(s)) {
            let Some(bot) = b.table.bots[seat].as_mut() else { continue };
            let view = game.view(Viewer::Seats(SeatSet::one(seat)));
            let accept =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bot.accept_draw(&view)))
                    .unwrap_or(false);
            if !accept {
                answers = vec![Action::DeclineDraw { seat }];
                break;
            }
            answers.push(Action::AcceptDraw { seat });
        }
        Ok(answers)
    }

    /// Accept (for every seat one controls) or decline a pending draw offer.
    pub(super) async fn answer_draw(&mut self, who: &Who, accept: bool) -> Answer {
        let game = &self.phase.battle()?.game;
        let mine = self.held_seats(who)?;
        let (offerer, accepted) = game.draw_offer().ok_or(RuleError::NoDrawOffer)?;
        let answering: Vec<Seat> = mine
            .into_iter()
            .filter(|s| *s != offerer && !game.is_eliminated(*s) && !accepted.contains(s))
            .collect();
        let Some(first) = answering.first().copied() else {
            // nobody left to answer for: say why (the engine's order: eliminated first)
            let out = self.held_seats(who)?.iter().all(|s| game.is_eliminated(*s));
            let e = if out { RuleError::SeatEliminated } else { RuleError::OwnDrawOffer };
            return Err(e.into());
        };
        let actions = if accept {
            answering.into_iter().map(|seat| Action::AcceptDraw { seat }).collect()
        } else {
            vec![Action::DeclineDraw { seat: first }]
        };
        self.commit(actions).await?;
        self.version()
    }

    /// Apply battle actions: all-or-nothing in the engine, committed, then broadcast.
    pub(super) async fn commit(&mut self, actions: Vec<Action>) -> Result<(), ProtoError> {
        let b = self.phase.battle()?;
        let mut g = b.game.clone();
        let before = (g.turn(), g.steps());
        let (mut events, mut witnesses): (Vec<Event>, Vec<siguo_rules::MoveWitness>) =
            (vec![], vec![]);
        for a in &actions {
            if let Action::Move { from, to } = a {
                witnesses.extend(g.witness(*from, *to));
            }
            events.extend(g.apply(a)?);
        }
        let finished = g.is_over().then(|| self.finished_game(&g));
        let (id, seq, acts) = (b.table.game_id, b.actions, actions.clone());
        // group commit: committed (with the other games' actions of this instant) before the broadcast
        let guard = self.guard.clone();
        let results = ResultsSlot::default();
        let applied = results.clone();
        self.live
            .db()
            .write_grouped(move |c| {
                let f = finished.as_ref();
                applied.put(store::append_actions_guarded(c, &guard, (id, seq), &acts, f)?);
                Ok(())
            })
            .await?;
        let results = results.take();
        let b = self.phase.battle_mut()?;
        b.actions += actions.len();
        for bot in b.table.bots.values_mut() {
            super::spawn::observe_all(bot, &events);
        }
        let over = g.is_over();
        if !over && before != (g.turn(), g.steps()) {
            b.turn_deadline = Some(now_ms() + self.options.move_seconds as i64 * 1000);
        }
        b.game = g;
        if over {
            self.enter_finished(results);
        }
        self.witnesses.extend(witnesses);
        self.publish(events.into_iter().map(WireEvent::from).collect());
        if over {
            self.broadcast_room();
        }
        Ok(())
    }

    /// The battle's game is over: the room stays open as finished, with the results the
    /// finishing write applied (a ranked game's).
    pub(super) fn enter_finished(&mut self, results: Option<GameResults>) {
        if let Phase::Battle(b) = std::mem::take(&mut self.phase) {
            self.phase = Phase::Finished(Finished::new(b.table, b.game, results));
        }
        self.release_owner();
        self.share(None, None);
    }

    /// What the ladder needs to know of a game that is over.
    pub(super) fn finished_game(&self, game: &Game) -> FinishedGame {
        let seats = BySeat::from_fn(|s| {
            let player = self.phase.table().and_then(|t| t.players[s].as_ref());
            let (account_id, guest, bot) = match player.map(|p| &p.occ) {
                Some(SeatOccupant::Account { account_id, guest, .. }) => {
                    (Some(*account_id), *guest, None)
                }
                Some(SeatOccupant::Bot { level }) => (None, false, Some(*level)),
                None => (None, false, None),
            };
            FinishedSeat {
                seat: s,
                account_id,
                guest,
                bot,
                escaped: player.is_some_and(|p| p.escaped),
                surrendered: game.elimination(s) == Some(ElimReason::Surrendered)
                    || matches!(game.status(), Status::SeatWon { winner, reason: WinReason::Surrender }
                        if winner != s && self.variant.has_seat(s)),
            }
        });
        FinishedGame {
            game_id: self.phase.game_id().unwrap_or(0),
            kind: self.kind,
            status: game.status(),
            reached_battle: true,
            seats,
        }
    }

    /// Ranked: these seats escaped (left, or away past the grace). Their turns are skipped
    /// from now on; during deployment their set-up counts as confirmed.
    pub(super) async fn escape(&mut self, seats: &[Seat]) -> Result<(), AppError> {
        let id = self.phase.game_id().ok_or_else(|| AppError::internal("escape without a game"))?;
        let deploying = match &self.phase {
            Phase::Deploying(d) => {
                let mut all = d.seats.clone();
                seats.iter().for_each(|s| all[*s].confirmed = true);
                Some(all)
            }
            _ => None,
        };
        let (list, save, variant) = (seats.to_vec(), deploying.clone(), self.variant);
        self.write(id, move |c| {
            for s in &list {
                store::mark_escaped(c, id, *s)?;
            }
            if let Some(d) = &save {
                store::save_deploying(c, id, variant, d)?;
            }
            Ok(())
        })
        .await?;
        if let Some(t) = self.phase.table_mut() {
            for s in seats {
                if let Some(p) = t.players[*s].as_mut() {
                    p.escaped = true;
                }
            }
        }
        if let (Phase::Deploying(d), Some(all)) = (&mut self.phase, deploying) {
            d.seats = all;
        }
        self.publish(seats.iter().map(|s| LiveEvent::Escaped { seat: *s }.into()).collect());
        if !self.variant.is_four_player() && matches!(self.phase, Phase::Battle(_)) {
            // Hidden Front: away past the grace loses the game
            let give_up = seats.iter().map(|s| Action::Surrender { seat: *s }).collect();
            return self.commit(give_up).await.map_err(|e| AppError::internal(e.message));
        }
        self.start_battle_if_all_confirmed().await
    }

    pub(super) async fn on_bot_done(&mut self, seat: Seat, bot: Box<dyn Bot>, mv: Option<Move>) {
        let plays = self.computer_plays(seat);
        let Phase::Battle(b) = &mut self.phase else { return };
        b.bot_thinking = false;
        if !plays {
            // its person took the seat back while it was thinking
            return;
        }
        b.table.bots[seat] = Some(bot);
        let (Some(mv), true) = (mv, b.game.turn() == Some(seat)) else { return };
        if let Err(e) = self.commit(vec![Action::Move { from: mv.from, to: mv.to }]).await {
            tracing::warn!(room = %self.id, error = ?e, "bot move refused");
            if e.code == ErrorCode::Internal {
                self.retry_at = Some(now_ms() + 1000);
            }
        }
    }

    /// Things that happen by themselves after any change: escaped seats skip, bots think.
    pub(super) async fn after_change(&mut self) {
        if self.retry_at.is_some() {
            return;
        }
        // escaped seats skip at once
        for _ in 0..64 {
            let Phase::Battle(b) = &self.phase else { return };
            let Some(turn) = b.game.turn() else { return };
            if !b.table.players[turn].as_ref().is_some_and(|p| p.escaped) {
                break;
            }
            if let Err(e) = self.commit(vec![Action::Timeout]).await {
                tracing::error!(room = %self.id, error = ?e, "escaped skip");
                self.retry_at = Some(now_ms() + 1000);
                return;
            }
        }
        if let Some(seats) = self.bots_left_alone() {
            // nobody plays against the bots any more: they give up for their people's team
            let give_up = seats.into_iter().map(|seat| Action::Surrender { seat }).collect();
            if let Err(e) = self.commit(give_up).await {
                tracing::error!(room = %self.id, error = ?e, "bots giving up");
                self.retry_at = Some(now_ms() + 1000);
            }
            return;
        }
        self.let_bot_think();
    }

    /// A four-player game with bots whose people are all out (surrendered, or eliminated after
    /// leaving) and gone from the room: the bots still playing on the team of the first of them,
    /// who now give up. (A person out of the game who stays watches the bots play on.)
    /// (Hidden Front ends when its person surrenders or escapes.)
    fn bots_left_alone(&self) -> Option<Vec<Seat>> {
        let Phase::Battle(b) = &self.phase else { return None };
        b.game.turn()?;
        let people: Vec<Seat> =
            self.seats().iter().copied().filter(|s| self.phase.account_at(*s).is_some()).collect();
        let first = *people.first()?;
        if !people.iter().all(|s| b.game.is_eliminated(*s)) {
            return None;
        }
        // while one of them still watches, the bots play on to the end (issue 38 §12)
        let accounts: Vec<i64> = people.iter().filter_map(|s| self.phase.account_at(*s)).collect();
        if self.subs.values().any(|s| accounts.contains(&s.who.account_id)) {
            return None;
        }
        let bots: Vec<Seat> = self
            .seats()
            .iter()
            .copied()
            .filter(|s| s.team() == first.team())
            .filter(|s| matches!(self.phase.occupant(*s), Some(SeatOccupant::Bot { .. })))
            .filter(|s| !b.game.is_eliminated(*s))
            .collect();
        (!bots.is_empty()).then_some(bots)
    }

    /// Whom this game's bot searches count for: the address of one of its people's sockets,
    /// else the game itself.
    fn bot_owner(&self) -> crate::live::bots::Owner {
        let seated = |a: i64| self.seats().iter().any(|s| self.phase.account_at(*s) == Some(a));
        match self.subs.values().find(|s| seated(s.tx.account_id)) {
            Some(s) => format!("ip {}", s.tx.ip),
            None => format!("room {}", self.id),
        }
    }

    /// If a bot is to move, think on a bot thread and answer with [`Cmd::BotDone`].
    fn let_bot_think(&mut self) {
        let Phase::Battle(b) = &mut self.phase else { return };
        let Some(turn) = b.game.turn() else { return };
        if b.bot_thinking {
            return;
        }
        let Some(mut bot) = b.table.bots[turn].take() else { return };
        let view = b.game.view(Viewer::Seats(SeatSet::one(turn)));
        let moves = b.game.legal_moves();
        b.bot_thinking = true;
        let me = self.me.clone();
        // Paced: the bot answers no sooner than the delay after the change that gave it the turn.
        let not_before = tokio::time::Instant::now()
            + std::time::Duration::from_millis(self.live.config().bot_move_delay_ms);
        let live = self.live.clone();
        let (answer, answered) = tokio::sync::oneshot::channel();
        // the bot threads take their owners in turn (bots.rs); the turn clock runs while a bot
        // waits (a bot whose turn ends first is skipped like anyone)
        self.live.bots().submit(self.bot_owner(), move || {
            live.bot_thinking(1);
            let mv = super::spawn::bot_choice(&mut bot, &view, &moves);
            live.bot_thinking(-1);
            let _ = answer.send((bot, mv));
        });
        tokio::spawn(async move {
            if let Ok((bot, mv)) = answered.await {
                tokio::time::sleep_until(not_before).await;
                let _ = me.send(Cmd::BotDone { seat: turn, bot, mv }).await;
            }
        });
    }
}
