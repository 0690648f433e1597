//! A game record: the variant, options, the deployments and every action, replayable.
use crate::board::Variant;
use crate::deploy::{DeployError, Deployment};
use crate::game::{Action, Event, Game, RuleError};
use crate::options::Options;
use serde::{Deserialize, Serialize};

/// JSON: `{"variant"?, "options", "deployments", "actions"}`, the options as the game shows
/// them ([`Options::shown`]).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawRecord")]
pub struct GameRecord {
    /// The game; missing in records written before Hidden Front: four-player.
    pub variant: Variant,
    pub options: Options,
    /// One deployment per seat, in the order of `variant.seats()` (N E S W; S N).
    pub deployments: Vec<Deployment>,
    pub actions: Vec<Action>,
}

#[derive(Serialize)]
struct RecordOut<'a> {
    variant: Variant,
    options: crate::options::ShownOptions,
    deployments: &'a [Deployment],
    actions: &'a [Action],
}

impl Serialize for GameRecord {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RecordOut {
            variant: self.variant,
            options: self.options.shown(self.variant),
            deployments: &self.deployments,
            actions: &self.actions,
        }
        .serialize(s)
    }
}

#[derive(Deserialize)]
struct RawRecord {
    #[serde(default)]
    variant: Variant,
    #[serde(default)]
    options: Option<serde_json::Value>,
    deployments: Vec<Deployment>,
    actions: Vec<Action>,
}

impl TryFrom<RawRecord> for GameRecord {
    type Error = String;
    fn try_from(r: RawRecord) -> Result<GameRecord, String> {
        Ok(GameRecord {
            variant: r.variant,
            options: Options::from_json_for(r.variant, r.options)?,
            deployments: r.deployments,
            actions: r.actions,
        })
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("bad deployment: {0}")]
    Deployment(#[from] DeployError),
    #[error("action {index} refused: {error}")]
    Action { index: usize, error: RuleError },
}

impl GameRecord {
    /// Rebuild the game by applying every action in order.
    pub fn replay(&self) -> Result<Game, ReplayError> {
        let mut g = Game::start(self.variant, self.options, &self.deployments)?;
        for (index, a) in self.actions.iter().enumerate() {
            g.apply(a).map_err(|error| ReplayError::Action { index, error })?;
        }
        Ok(g)
    }
    /// Rebuild the game with every event in order (the initial ones first) and the witness of
    /// each move ([`crate::MoveWitness`], one per `Moved` event, in order).
    pub fn replay_with_witnesses(
        &self,
    ) -> Result<(Game, Vec<Event>, Vec<crate::MoveWitness>), ReplayError> {
        let mut g = Game::start(self.variant, self.options, &self.deployments)?;
        let (mut events, mut witnesses) = (g.initial_events(), vec![]);
        for (index, a) in self.actions.iter().enumerate() {
            let w = match a {
                Action::Move { from, to } => g.witness(*from, *to),
                _ => None,
            };
            events.extend(g.apply(a).map_err(|error| ReplayError::Action { index, error })?);
            witnesses.extend(w);
        }
        Ok((g, events, witnesses))
    }
    /// Rebuild the game, also returning every event in order (the initial ones first).
    pub fn replay_with_events(&self) -> Result<(Game, Vec<Event>), ReplayError> {
        let mut g = Game::start(self.variant, self.options, &self.deployments)?;
        let mut events = g.initial_events();
        for (index, a) in self.actions.iter().enumerate() {
            events.extend(g.apply(a).map_err(|error| ReplayError::Action { index, error })?);
        }
        Ok((g, events))
    }
}
