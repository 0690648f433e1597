//! What changed between two views of one viewer (protocol 2's `delta`, docs/protocol.md §5).
//!
//! A [`ViewDelta`] is made only by [`View::delta_to`] from two views of the same viewer: every
//! piece and value in it is taken from the newer view, so it never shows more than that view
//! does. [`View::apply`] turns the older view into the newer one.
use crate::board::{Seat, Station, Variant};
use crate::game::{Game, Status};
use crate::view::{SeenPiece, View, Viewer};
use serde::{Deserialize, Deserializer, Serialize};
use std::collections::BTreeMap;

type Fallen = BTreeMap<Seat, BTreeMap<Station, SeenPiece>>;

/// The changes from one view to the next of the same viewer: the stations whose piece changed
/// (the piece as the viewer sees it now, or `None` where the station emptied) and the other
/// fields that changed (`None`: unchanged; `Some(None)`: now null). The variant and the options
/// never change during a game and are not part of it.
///
/// `Deserialize` is for clients and tests reading the wire format (either counter name is read
/// as `skips`; the variant is not on the wire).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ViewDelta {
    /// names the counters on the wire (`skips`, Hidden Front `timeouts`); not sent
    #[serde(skip)]
    pub variant: Variant,
    pub pieces: BTreeMap<Station, Option<SeenPiece>>,
    #[serde(deserialize_with = "present")]
    pub turn: Option<Option<Seat>>,
    pub eliminated: Option<Vec<Seat>>,
    #[serde(alias = "timeouts")]
    pub skips: Option<BTreeMap<Seat, u32>>,
    pub steps: Option<u32>,
    #[serde(deserialize_with = "present")]
    pub quiet_steps: Option<Option<u32>>,
    pub status: Option<Status>,
    pub flags_revealed: Option<Vec<Seat>>,
    #[serde(deserialize_with = "present")]
    pub draw_offer: Option<Option<Seat>>,
    pub fallen: Option<Fallen>,
}

/// Serde `deserialize_with` for an `Option<Option<T>>` field that may be absent (`None`:
/// unchanged) or null (`Some(None)`), with `#[serde(default)]`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// `Some(new)` when it differs from `old`.
fn changed<T: PartialEq + Clone>(old: &T, new: &T) -> Option<T> {
    (old != new).then(|| new.clone())
}

impl View {
    /// What changed from this view to `new`, a later view of the same viewer. Everything in
    /// the delta is taken from `new`.
    pub fn delta_to(&self, new: &View) -> ViewDelta {
        // one walk over both maps in station order (no lookups); the changes come out in order
        let mut changes: Vec<(Station, Option<SeenPiece>)> = Vec::new();
        let (mut old_it, mut new_it) =
            (self.pieces.iter().peekable(), new.pieces.iter().peekable());
        loop {
            match (old_it.peek(), new_it.peek()) {
                (None, None) => break,
                (Some((os, _)), Some((ns, _))) if os < ns => {
                    changes.push((**os, None));
                    old_it.next();
                }
                (Some((os, op)), Some((ns, np))) if os == ns => {
                    if op != np {
                        changes.push((**ns, Some(**np)));
                    }
                    old_it.next();
                    new_it.next();
                }
                (_, Some((ns, np))) => {
                    changes.push((**ns, Some(**np)));
                    new_it.next();
                }
                (Some((os, _)), None) => {
                    changes.push((**os, None));
                    old_it.next();
                }
            }
        }
        let pieces: BTreeMap<Station, Option<SeenPiece>> = changes.into_iter().collect();
        ViewDelta {
            variant: new.variant,
            pieces,
            turn: changed(&self.turn, &new.turn),
            eliminated: changed(&self.eliminated, &new.eliminated),
            skips: changed(&self.skips, &new.skips),
            steps: changed(&self.steps, &new.steps),
            quiet_steps: changed(&self.quiet_steps, &new.quiet_steps),
            status: changed(&self.status, &new.status),
            flags_revealed: changed(&self.flags_revealed, &new.flags_revealed),
            draw_offer: changed(&self.draw_offer, &new.draw_offer),
            fallen: changed(&self.fallen, &new.fallen),
        }
    }

    /// Apply a delta made from this view (see [`View::delta_to`]).
    pub fn apply(&mut self, d: &ViewDelta) {
        for (st, p) in &d.pieces {
            match p {
                Some(p) => self.pieces.insert(*st, *p),
                None => self.pieces.remove(st),
            };
        }
        fn set<T: Clone>(field: &mut T, v: &Option<T>) {
            if let Some(v) = v {
                *field = v.clone();
            }
        }
        set(&mut self.turn, &d.turn);
        set(&mut self.eliminated, &d.eliminated);
        set(&mut self.skips, &d.skips);
        set(&mut self.steps, &d.steps);
        set(&mut self.quiet_steps, &d.quiet_steps);
        set(&mut self.status, &d.status);
        set(&mut self.flags_revealed, &d.flags_revealed);
        set(&mut self.draw_offer, &d.draw_offer);
        set(&mut self.fallen, &d.fallen);
    }
}

impl Game {
    /// `viewer`'s delta from `old`, its view of `before` (an earlier state of this game:
    /// `old` must equal `before.view(viewer)`), to its view of this game — without building
    /// the new view: only the stations whose piece changed are looked at, each through
    /// [`Game::may_see`] as [`Game::view`] does, so the delta equals `old.delta_to(&self.view(viewer))`.
    ///
    /// `None` when the step changed what the viewer may see of pieces that did not move (a
    /// flag revealed, a seat eliminated, the game over and its full reveal), or `before` is
    /// another game: then build the view and use [`View::delta_to`].
    pub fn delta_since(&self, before: &Game, old: &View, viewer: Viewer) -> Option<ViewDelta> {
        let same_sight = self.variant == before.variant
            && self.options == before.options
            && !self.is_over()
            && !before.is_over()
            && self.revealed == before.revealed
            && self.elim == before.elim;
        if !same_sight {
            return None;
        }
        let mut pieces = BTreeMap::new();
        for (i, (now, was)) in self.board.iter().zip(before.board.iter()).enumerate() {
            if now == was {
                continue;
            }
            let st = Station(i as u8);
            let seen = self.seen_at(st, viewer);
            if old.pieces.get(&st) != seen.as_ref() {
                pieces.insert(st, seen);
            }
        }
        Some(ViewDelta {
            variant: self.variant,
            pieces,
            turn: changed(&old.turn, &self.turn()),
            eliminated: None,
            skips: changed(&old.skips, &self.shown_skips()),
            steps: changed(&old.steps, &self.steps()),
            quiet_steps: changed(&old.quiet_steps, &self.shown_quiet()),
            status: changed(&old.status, &self.status()),
            flags_revealed: None,
            draw_offer: changed(&old.draw_offer, &self.offer.map(|(s, _)| s)),
            fallen: None,
        })
    }
}

/// The wire form of a [`ViewDelta`]: only what changed; a nullable field that became null is
/// written `null`.
#[derive(Serialize)]
struct DeltaOut<'a> {
    pieces: &'a BTreeMap<Station, Option<SeenPiece>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    turn: Option<Option<Seat>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    eliminated: Option<&'a [Seat]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    skips: Option<&'a BTreeMap<Seat, u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timeouts: Option<&'a BTreeMap<Seat, u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quiet_steps: Option<Option<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    status: Option<&'a Status>,
    #[serde(skip_serializing_if = "Option::is_none")]
    flags_revealed: Option<&'a [Seat]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    draw_offer: Option<Option<Seat>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    fallen: Option<&'a Fallen>,
}

impl Serialize for ViewDelta {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (skips, timeouts) = match &self.skips {
            Some(c) => crate::options::counters_shown(self.variant, c),
            None => (None, None),
        };
        DeltaOut {
            pieces: &self.pieces,
            turn: self.turn,
            eliminated: self.eliminated.as_deref(),
            skips,
            timeouts,
            steps: self.steps,
            quiet_steps: self.quiet_steps,
            status: self.status.as_ref(),
            flags_revealed: self.flags_revealed.as_deref(),
            draw_offer: self.draw_offer,
            fallen: self.fallen.as_ref(),
        }
        .serialize(s)
    }
}
