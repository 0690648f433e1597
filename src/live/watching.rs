//! Watching: the lobby's list of games in progress that anyone may watch (a public casual
//! room's game, a ranked game; never a private room's or a practice game), with their players
//! and step. Each room keeps its entry current ([`super::room`]'s `update_summary`); in a
//! cluster the entries are read from the shared `rooms` table, so every node lists every game.
use super::protocol::LiveGameSummary;
use super::Live;
use crate::error::AppResult;

impl Live {
    /// The games in progress anyone may watch: the directory's (every node's, in a cluster),
    /// else this node's own; oldest first.
    pub async fn listed_games(&self) -> AppResult<Vec<LiveGameSummary>> {
        match self.directory().listed_games().await? {
            Some(all) => Ok(all),
            None => Ok(self.inner.registry.live_games()),
        }
    }

    /// The entry of room `id`'s game in the list (`None` removes it).
    pub(crate) fn set_live_game(&self, id: &str, game: Option<LiveGameSummary>) {
        self.inner.registry.set_live_game(id, game);
    }
}
