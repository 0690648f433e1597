//! Publishing a new version: every subscriber's `update`, with its whole view or (protocol 2)
//! a delta of it (docs/protocol.md §5). A delta is made only from two views of the receiver's
//! own viewer, as `Game::view` redacts them: the view it holds and its view now.
use super::Room;
use crate::live::protocol::{raw_event, RawEvent, WireEvent};
use bytestring::ByteString;
use siguo_rules::{View, ViewDelta, Viewer};
use std::borrow::Cow;
use std::collections::HashMap;

/// What an update carries: the receiver's whole view (`None`: no game yet), or a delta.
pub(crate) enum Body<'a> {
    Full(Option<Cow<'a, View>>),
    Delta(ViewDelta),
}

/// The views the protocol-2 subscribers hold: per viewer, its view of `game` at version `v`
/// (what the last update or snapshot gave them).
pub(super) struct Held {
    game: Option<i64>,
    v: u64,
    views: HashMap<Viewer, View>,
}

/// One subscriber of a publication: its connection, viewer, whether it takes deltas and
/// whether it holds its viewer's view of the previous version.
struct Receiver {
    conn_id: u64,
    viewer: Viewer,
    deltas: bool,
    based: bool,
}

impl Room {
    /// A new version with these public events: log it, send every subscriber its update (each
    /// distinct text built once: per viewer, whole view or delta).
    pub(super) fn publish(&mut self, events: Vec<WireEvent>) {
        let clock = self.clock();
        let raw: Vec<RawEvent> = events.iter().map(raw_event).collect();
        if self.phase.game_id().is_some() {
            self.past.extend(raw.iter().cloned());
        }
        let from_v = self.history.push(raw);
        self.refresh_live_entry();
        let game_id = self.phase.game_id();
        let held = self.held.take().filter(|h| h.v == from_v && h.game == game_id);
        let receivers: Vec<Receiver> = self
            .subs
            .iter()
            .map(|(k, s)| {
                let viewer = self.viewer(s.who.account_id);
                let based = s.seen == Some(viewer)
                    && held.as_ref().is_some_and(|h| h.views.contains_key(&viewer));
                Receiver { conn_id: *k, viewer, deltas: s.tx.deltas(), based }
            })
            .collect();
        let mut views: HashMap<Viewer, View> = HashMap::new();
        if let Some(g) = self.phase.game() {
            for r in &receivers {
                views.entry(r.viewer).or_insert_with(|| g.view(r.viewer));
            }
        }
        let mut texts: HashMap<(Viewer, bool), ByteString> = HashMap::new();
        let events = self.history.last();
        for r in &receivers {
            let delta = r.deltas && r.based;
            let text = match texts.get(&(r.viewer, delta)) {
                Some(t) => t.clone(),
                None => {
                    let body = match (
                        views.get(&r.viewer),
                        held.as_ref().and_then(|h| h.views.get(&r.viewer)),
                    ) {
                        (Some(new), Some(old)) if delta => Body::Delta(old.delta_to(new)),
                        (new, _) => Body::Full(new.map(Cow::Borrowed)),
                    };
                    let t = self.update_text(r.viewer, (from_v, events), clock, body);
                    texts.insert((r.viewer, delta), t.clone());
                    t
                }
            };
            if let Some(s) = self.subs.get(&r.conn_id) {
                s.tx.send_text(text);
            }
        }
        self.keep_views(&receivers, views);
    }

    /// After an update: what each subscriber now holds, and the views the protocol-2 ones
    /// hold (the base of the next deltas).
    fn keep_views(&mut self, receivers: &[Receiver], mut views: HashMap<Viewer, View>) {
        let has_game = self.phase.game().is_some();
        for r in receivers {
            if let Some(s) = self.subs.get_mut(&r.conn_id) {
                s.seen = has_game.then_some(r.viewer);
            }
        }
        views.retain(|v, _| receivers.iter().any(|r| r.deltas && r.viewer == *v));
        self.held = (has_game && !views.is_empty()).then(|| Held {
            game: self.phase.game_id(),
            v: self.history.v(),
            views,
        });
    }

    /// A subscriber was just sent the current version (a snapshot, or the missed events with
    /// its whole view): it holds its viewer's view now, the base of its next delta.
    pub(super) fn holds_current(&mut self, conn_id: u64) {
        let Some(s) = self.subs.get(&conn_id) else { return };
        let viewer = self.viewer(s.who.account_id);
        let Some(g) = self.phase.game() else { return };
        let deltas = s.tx.deltas();
        let (game, v) = (self.phase.game_id(), self.history.v());
        let held = self.held.get_or_insert_with(|| Held { game, v, views: HashMap::new() });
        if held.game != game || held.v != v {
            *held = Held { game, v, views: HashMap::new() };
        }
        if deltas {
            held.views.entry(viewer).or_insert_with(|| g.view(viewer));
        }
        if let Some(s) = self.subs.get_mut(&conn_id) {
            s.seen = Some(viewer);
        }
    }
}
