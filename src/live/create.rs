//! Making rooms and games: a casual room, a game that starts in its deployment (ranked matches,
//! practice), and the games restored from the database after a restart or a failover.
use super::protocol::{ErrorCode, ProtoError};
use super::{parse_options, room, store, GameKind, Live, SeatOccupant, Who};
use crate::error::{AppError, AppResult};
use siguo_bots::Level;
use siguo_rules::{BySeat, OptionChanges, Options, Seat, Variant};
use std::net::IpAddr;

impl Live {
    // ---- creating rooms and games ----

    /// Open a casual room of `variant` hosted by `host` (not seated).
    pub async fn create_room(
        &self,
        (host, ip): (&Who, IpAddr),
        public: bool,
        variant: Variant,
        options: Options,
    ) -> AppResult<(String, String)> {
        options
            .validate()
            .map_err(|e| AppError::bad_request(ErrorCode::InvalidOptions, e.to_string()))?;
        self.check_clocks(variant, public, &options)?;
        let reserved = self.reserve_room(host.account_id, ip).await?;
        room::spawn_waiting(self, host, (public, variant, options), reserved)
    }

    /// Hidden Front (hidden-front.md §6): a public room plays the standard clocks; a private
    /// room or a practice game may set longer ones (any, with `hidden_front_short_clocks`).
    fn check_clocks(&self, variant: Variant, public: bool, o: &Options) -> AppResult<()> {
        // the short-clock switch (tests) is for private and practice games only
        if variant.is_four_player() || (self.inner.config.hidden_front_short_clocks && !public) {
            return Ok(());
        }
        let d = Options::for_variant(variant);
        let clocks = [
            ("move_seconds", o.move_seconds, d.move_seconds),
            ("deploy_seconds", o.deploy_seconds, d.deploy_seconds),
            ("reconnect_seconds", o.reconnect_seconds, d.reconnect_seconds),
        ];
        for (name, given, standard) in clocks {
            if given < standard || (public && given != standard) {
                let rule = if public { "exactly" } else { "at least" };
                return Err(AppError::bad_request(
                    ErrorCode::InvalidOptions,
                    format!(
                        "{name} must be {rule} {standard} in a {} Hidden Front game, got {given}",
                        if public { "public" } else { "private or practice" }
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Create a four-player game directly in its deployment phase (ranked matches). Returns
    /// the game id and its room id (`"g<id>"`). The game row and seats are committed before this
    /// returns.
    pub async fn create_game(
        &self,
        kind: GameKind,
        seats: impl Into<BySeat<SeatOccupant>>,
        options: Options,
    ) -> AppResult<(i64, String)> {
        let seats = seats.into().map(|_, o| Some(o.clone()));
        self.create_game_of(kind, Variant::FourPlayer, seats, options).await
    }

    /// Create a game of `variant` in its deployment phase; `seats` fills exactly the variant's
    /// seats.
    pub async fn create_game_of(
        &self,
        kind: GameKind,
        variant: Variant,
        seats: BySeat<Option<SeatOccupant>>,
        options: Options,
    ) -> AppResult<(i64, String)> {
        options
            .validate()
            .map_err(|e| AppError::bad_request(ErrorCode::InvalidOptions, e.to_string()))?;
        if Seat::ALL.into_iter().any(|s| seats[s].is_some() != variant.has_seat(s)) {
            return Err(AppError::internal("a game's seats are those of its variant"));
        }
        room::spawn_game(self, (kind, variant), seats, options, None).await
    }

    /// A practice game of `variant`: `who` on `seat` (default South), a bot of `level` on every
    /// other seat (Hidden Front: one). Returns the game id and its room id.
    pub async fn start_practice(
        &self,
        (who, ip): (&Who, IpAddr),
        variant: Variant,
        options: Option<OptionChanges>,
        level: Option<Level>,
        seat: Option<Seat>,
    ) -> Result<(i64, String), ProtoError> {
        let options = parse_options(variant, options)?;
        self.check_clocks(variant, false, &options)?;
        let seat = seat.unwrap_or(Seat::S);
        if !variant.has_seat(seat) {
            let m = format!("seat {} does not play in {}", seat.letter(), variant.name());
            return Err(ProtoError::new(ErrorCode::BadSeat, m));
        }
        // held before the game row is written; the room takes the place when it is made
        let reserved = self.reserve_room(who.account_id, ip).await?;
        let level = level.unwrap_or(Level::Standard);
        let person = SeatOccupant::Account {
            account_id: who.account_id,
            name: who.name.clone(),
            guest: who.guest,
        };
        let seats = BySeat::from_fn(|s| match (s == seat, variant.has_seat(s)) {
            (true, _) => Some(person.clone()),
            (false, true) => Some(SeatOccupant::Bot { level }),
            (false, false) => None,
        });
        options
            .validate()
            .map_err(|e| AppError::bad_request(ErrorCode::InvalidOptions, e.to_string()))?;
        let kind = (GameKind::Practice, variant);
        Ok(room::spawn_game(self, kind, seats, options, Some(reserved)).await?)
    }

    /// Reload every unfinished game from the database and resume it (clocks re-armed + grace).
    pub async fn restore(&self) -> AppResult<usize> {
        let stored = self.db().run(store::load_unfinished).await?;
        let n = stored.len();
        for g in stored {
            let id = g.id;
            if let Err(e) = room::spawn_restored(self, g) {
                tracing::error!(game = id, error = %e, "could not restore game");
            }
        }
        Ok(n)
    }

    /// Reload one unfinished game and resume it (cluster mode: a game this node has just
    /// claimed or kept). `false` if it is already played here or is no longer unfinished.
    pub async fn restore_game(&self, id: i64) -> AppResult<bool> {
        let _one_at_a_time = self.inner.restoring.lock().await;
        if self.room_by_game(id).is_some() {
            return Ok(false);
        }
        let Some(g) = self.db().run(move |c| store::load_unfinished_game(c, id)).await? else {
            return Ok(false);
        };
        room::spawn_restored(self, g)?;
        Ok(true)
    }
}
