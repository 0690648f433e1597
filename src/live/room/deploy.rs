//! Deployment (布阵): the game row is created with a random set-up per seat (bots deploy and
//! confirm at once); people swap, randomize, load and confirm; then the battle starts.
use super::phase::{Battle, Deploy, Finished, Lobby, Phase, Player, Slot, Table};
use super::{spawn, Answer, Room};
use crate::error::{AppError, AppResult};
use crate::live::finish::ResultsSlot;
use crate::live::protocol::{now_ms, AckBody, ErrorCode, LiveEvent, ProtoError, WireEvent};
use crate::live::store::{self, DeploySeat};
use crate::live::{GameKind, SeatOccupant, Who};
use siguo_rules::{Action, BySeat, Deployment, Formation, Game, RuleError, Seat, Station};

const DONE: Answer = Ok(Some(AckBody::Empty {}));

impl Room {
    /// All seats filled: random deployments (bots deploy and confirm), the game row, the
    /// deployment clock. The phase changes only once the row is committed.
    pub(super) async fn begin_deployment(&mut self) -> AppResult<()> {
        let Phase::Waiting(lobby) = &self.phase else {
            return Err(AppError::internal("deployment begins in a waiting room"));
        };
        let variant = self.variant;
        let occupants =
            BySeat::from_fn(|s| lobby.seats[s].as_ref().filter(|_| variant.has_seat(s)))
                .map(|_, x| x.map(|x| x.occ.clone()));
        if variant.seats().iter().any(|s| occupants[*s].is_none()) {
            return Err(AppError::internal("deployment needs every seat filled"));
        }
        let budget = self.live.config().bot_budget_ms;
        let mut bots = occupants.map(|_, occ| match occ {
            Some(SeatOccupant::Bot { level }) => Some(spawn::make_bot(*level, budget)),
            _ => None,
        });
        let seats = BySeat::from_fn(|s| match (occupants[s].as_ref(), bots[s].as_mut()) {
            (None, _) => DeploySeat::unused(s),
            (Some(_), Some(b)) => DeploySeat {
                deployment: spawn::bot_deployment(b.as_mut(), variant, s, &self.options),
                confirmed: true,
                surrendered: false,
            },
            (Some(_), None) => DeploySeat {
                deployment: Deployment::random_for(variant, s, &self.options, &mut spawn::rng()),
                confirmed: false,
                surrendered: false,
            },
        });
        let kind = (self.kind, self.kind.open_to_all(self.public));
        let (options, occ, deps) = (self.options, occupants.clone(), seats.clone());
        let guard = self.guard.clone();
        let game_id = self
            .live
            .db()
            .run(move |c| {
                let id = store::create_game(c, kind, variant, &options, &occ, &deps)?;
                guard.own(c, id)?;
                Ok(id)
            })
            .await?;
        let now = now_ms();
        let online = BySeat::from_fn(|s| self.online(s));
        let Phase::Waiting(lobby) = &mut self.phase else {
            return Err(AppError::internal("deployment begins in a waiting room"));
        };
        let slots = std::mem::take(&mut lobby.seats);
        let players = BySeat::from_fn(|s| {
            let occ = occupants[s].clone()?;
            let offline_since = slots[s].as_ref().and_then(|x| x.offline_since);
            let person = occ.account_id().is_some();
            Some(Player {
                occ,
                // only a person is ever away (a bot seat has no reconnect grace)
                offline_since: (person && !online[s]).then(|| offline_since.unwrap_or(now)),
                escaped: false,
                auto: None,
            })
        });
        let deadline = now_ms() + self.options.deploy_seconds as i64 * 1000;
        self.phase =
            Phase::Deploying(Deploy { table: Table { game_id, players, bots }, seats, deadline });
        self.past.clear();
        self.witnesses.clear();
        Ok(())
    }

    /// The seat a deployment action is for: yours, not yet confirmed.
    fn deploy_seat(&mut self, who: &Who, seat: Option<Seat>) -> Result<Seat, ProtoError> {
        self.phase.deploy_mut()?;
        let seat = self.my_seat(who, seat)?;
        if self.phase.deploy_mut()?.seats[seat].confirmed {
            return Err(ProtoError::new(
                ErrorCode::AlreadyConfirmed,
                "this deployment is already confirmed",
            ));
        }
        Ok(seat)
    }

    pub(super) async fn swap(
        &mut self,
        who: &Who,
        seat: Option<Seat>,
        a: Station,
        b: Station,
    ) -> Answer {
        let seat = self.deploy_seat(who, seat)?;
        let mut d = self.phase.deploy_mut()?.seats[seat].deployment.clone();
        d.swap(a, b, &self.options)?;
        self.set_deployment(seat, d).await
    }

    pub(super) async fn randomize(&mut self, who: &Who, seat: Option<Seat>) -> Answer {
        let seat = self.deploy_seat(who, seat)?;
        let d = Deployment::random_for(self.variant, seat, &self.options, &mut spawn::rng());
        self.set_deployment(seat, d).await
    }

    pub(super) async fn load_formation(
        &mut self,
        who: &Who,
        seat: Option<Seat>,
        formation: i64,
    ) -> Answer {
        let seat = self.deploy_seat(who, seat)?;
        if who.guest {
            return Err(ProtoError::new(
                ErrorCode::GuestNotAllowed,
                "guests have no saved formations",
            ));
        }
        let (account, variant) = (who.account_id, self.variant);
        let f: Formation = self
            .live
            .db()
            .run(move |c| store::load_formation(c, account, variant, formation))
            .await?;
        self.set_formation(who, Some(seat), &f).await
    }

    pub(super) async fn set_formation(
        &mut self,
        who: &Who,
        seat: Option<Seat>,
        f: &Formation,
    ) -> Answer {
        let seat = self.deploy_seat(who, seat)?;
        let d = Deployment::from_formation_for(self.variant, seat, f, &self.options)?;
        self.set_deployment(seat, d).await
    }

    /// Replace a seat's deployment: committed, then sent to its owner.
    async fn set_deployment(&mut self, seat: Seat, d: Deployment) -> Answer {
        let deploy = self.phase.deploy_mut()?;
        let mut seats = deploy.seats.clone();
        seats[seat].deployment = d;
        self.save_deploying(&seats).await?;
        self.phase.deploy_mut()?.seats = seats;
        self.send_deployment(seat);
        DONE
    }

    pub(super) async fn save_deploying(&self, seats: &BySeat<DeploySeat>) -> AppResult<()> {
        let id = self.phase.game_id().ok_or_else(|| AppError::internal("no game"))?;
        let (seats, variant) = (seats.clone(), self.variant);
        self.write(id, move |c| store::save_deploying(c, id, variant, &seats)).await
    }

    pub(super) async fn confirm(&mut self, who: &Who, seat: Option<Seat>) -> Answer {
        let seat = self.deploy_seat(who, seat)?;
        let mut seats = self.phase.deploy_mut()?.seats.clone();
        seats[seat].confirmed = true;
        self.save_deploying(&seats).await?;
        self.phase.deploy_mut()?.seats = seats;
        self.send_deployment(seat);
        self.publish(vec![LiveEvent::DeployConfirmed { seat }.into()]);
        self.start_battle_if_all_confirmed().await?;
        DONE
    }

    /// Surrender during deployment: recorded (and the deployment confirmed) now, applied as
    /// soon as the battle starts.
    pub(super) async fn surrender_deploying(&mut self, who: &Who, seat: Option<Seat>) -> Answer {
        let seats: Vec<Seat> = match seat {
            Some(s) => vec![self.my_seat(who, Some(s))?],
            None => self.held_seats(who)?,
        };
        let mut all = self.phase.deploy_mut()?.seats.clone();
        if seats.iter().any(|s| all[*s].surrendered) {
            return Err(RuleError::SeatEliminated.into());
        }
        for s in &seats {
            all[*s].surrendered = true;
            all[*s].confirmed = true;
        }
        self.save_deploying(&all).await?;
        self.phase.deploy_mut()?.seats = all;
        self.publish(
            seats.iter().map(|s| LiveEvent::DeployConfirmed { seat: *s }.into()).collect(),
        );
        self.start_battle_if_all_confirmed().await?;
        Ok(Some(AckBody::Version { v: self.history.v() }))
    }

    pub(super) async fn start_battle_if_all_confirmed(&mut self) -> AppResult<()> {
        match &self.phase {
            Phase::Deploying(d) if d.seats.values().all(|x| x.confirmed) => {
                self.start_battle().await
            }
            _ => Ok(()),
        }
    }

    /// Every seat deployed (or the clock ran out): the battle starts; surrenders made during
    /// deployment take effect at once.
    pub(super) async fn start_battle(&mut self) -> AppResult<()> {
        let Phase::Deploying(deploy) = &self.phase else {
            return Err(AppError::internal("the battle starts from deployment"));
        };
        let deps: Vec<Deployment> = store::in_variant_order(self.variant, &deploy.seats)
            .into_iter()
            .map(|d| d.deployment)
            .collect();
        let surrendered: Vec<Seat> = deploy.seats.seats_where(|d| d.surrendered).collect();
        let game = Game::start(self.variant, self.options, &deps)
            .map_err(|e| AppError::internal(format!("deployment: {e}")))?;
        let id = deploy.table.game_id;
        let finished = game.is_over().then(|| self.finished_game(&game));
        let results = ResultsSlot::default();
        let applied = results.clone();
        self.write(id, move |c| {
            store::start_battle(c, id, &deps)?;
            if let Some(f) = &finished {
                applied.put(store::append_actions(c, id, 0, &[], Some(f))?);
            }
            Ok(())
        })
        .await?;
        let initial = game.initial_events();
        let Phase::Deploying(deploy) = std::mem::take(&mut self.phase) else {
            return Err(AppError::internal("the battle starts from deployment"));
        };
        let mut table = deploy.table;
        for b in table.bots.values_mut() {
            spawn::observe_all(b, &initial);
        }
        self.phase = if game.is_over() {
            Phase::Finished(Finished::new(table, game, results.take()))
        } else {
            let turn_deadline =
                game.turn().map(|_| now_ms() + self.options.move_seconds as i64 * 1000);
            Phase::Battle(Battle { table, game, actions: 0, turn_deadline, bot_thinking: false })
        };
        let mut events: Vec<WireEvent> = vec![LiveEvent::BattleStarted.into()];
        events.extend(initial.into_iter().map(WireEvent::from));
        self.publish(events);
        self.broadcast_room();
        for seat in surrendered {
            let Phase::Battle(b) = &self.phase else { break };
            if b.game.is_eliminated(seat) {
                continue;
            }
            if let Err(e) = self.commit(vec![Action::Surrender { seat }]).await {
                tracing::error!(room = %self.id, error = ?e, "surrender made during deployment");
            }
        }
        Ok(())
    }

    /// Hidden Front's casual rooms (hidden-front.md §6): a player who left without confirming
    /// loses the seat and the other waits for a new opponent.
    pub(super) fn seat_lost_when_gone(&self) -> bool {
        !self.variant.is_four_player() && self.kind == GameKind::Casual
    }

    /// The seats of people who left without confirming (`all`: or whose deployment is not
    /// confirmed while they are away).
    pub(super) fn unconfirmed_away(&self, account: Option<i64>) -> Vec<Seat> {
        let Phase::Deploying(d) = &self.phase else { return vec![] };
        let away = |s: Seat| match account {
            Some(a) => self.phase.account_at(s) == Some(a),
            None => self.phase.account_at(s).is_some() && !self.online(s),
        };
        self.seats().iter().copied().filter(|s| !d.seats[*s].confirmed && away(*s)).collect()
    }

    /// These seats lose their places: the game ends unplayed (`aborted`) and the room waits
    /// again, the others keeping their seats (not ready).
    pub(super) async fn reopen_seats(&mut self, gone: &[Seat]) -> AppResult<()> {
        let id = self.phase.game_id().ok_or_else(|| AppError::internal("no game"))?;
        self.write(id, move |c| store::abort_game(c, id)).await?;
        let Phase::Deploying(d) = std::mem::take(&mut self.phase) else {
            return Err(AppError::internal("seats reopen during deployment"));
        };
        let mut players = d.table.players;
        let seats = BySeat::from_fn(|s| {
            let p = players[s].take().filter(|_| !gone.contains(&s))?;
            let ready = p.occ.account_id().is_none();
            Some(Slot { occ: p.occ, ready, offline_since: p.offline_since })
        });
        let empty_since = self.subs.is_empty().then(now_ms);
        self.phase = Phase::Waiting(Lobby { seats, empty_since });
        self.past.clear();
        self.witnesses.clear();
        self.live.forget_game(id);
        self.broadcast_room();
        Ok(())
    }
}
