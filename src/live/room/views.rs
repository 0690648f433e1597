//! Publishing a new version: every subscriber's `update`, with its whole view or (protocol 2)
//! a delta of it (docs/protocol.md §5). A delta is made only for the receiver's own viewer: by
//! `Game::delta_since` (the stations a step changed, each redacted by `Game::may_see` as
//! `Game::view` does) or, when a step changed more (a flag shown, a seat out, the end), from
//! the view it holds and its view now.
use super::Room;
use crate::live::protocol::{raw_event, RawEvent, WireEvent};
use bytestring::ByteString;
use siguo_rules::{Game, View, ViewDelta, Viewer};
use std::borrow::Cow;
use std::collections::HashMap;

/// What an update carries: the receiver's whole view (`None`: no game yet), or a delta.
pub(crate) enum Body<'a> {
    Full(Option<Cow<'a, View>>),
    Delta(ViewDelta),
}

/// The views the protocol-2 subscribers hold: per viewer, its view of `game` at version `v`
/// (what the last update or snapshot gave them), and the game they were made from (`base`:
/// the next step's deltas come from [`Game::delta_since`] against it).
pub(super) struct Held {
    game: Option<i64>,
    v: u64,
    base: Game,
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

impl Receiver {
    /// Whether this receiver is sent a delta (else its whole view).
    fn delta(&self) -> bool {
        self.deltas && self.based
    }
}

/// One viewer's share of a publication: its new view (when a receiver takes it whole or a
/// protocol-2 receiver keeps it) and its delta (when a receiver holds its previous view).
struct Part {
    view: Option<View>,
    delta: Option<ViewDelta>,
}

/// Each viewer's part of the publication of `g`. A delta comes from [`Game::delta_since`]
/// (only the stations that changed, no view built) where it answers, else from the new view
/// and [`View::delta_to`]; the held view, with the delta applied, is the viewer's new view.
fn parts(g: &Game, receivers: &[Receiver], mut held: Option<&mut Held>) -> HashMap<Viewer, Part> {
    let mut parts: HashMap<Viewer, Part> = HashMap::new();
    for r in receivers {
        if parts.contains_key(&r.viewer) {
            continue;
        }
        let wants_delta = receivers.iter().any(|x| x.viewer == r.viewer && x.delta());
        let old = held.as_deref_mut().filter(|_| wants_delta).and_then(|h| {
            let old = h.views.remove(&r.viewer)?;
            Some((g.delta_since(&h.base, &old, r.viewer), old))
        });
        let part = match old {
            Some((Some(delta), mut view)) => {
                view.apply(&delta);
                Part { view: Some(view), delta: Some(delta) }
            }
            Some((None, old)) => {
                let view = g.view(r.viewer);
                Part { delta: Some(old.delta_to(&view)), view: Some(view) }
            }
            None => Part { view: Some(g.view(r.viewer)), delta: None },
        };
        parts.insert(r.viewer, part);
    }
    parts
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
        let mut held = self.held.take().filter(|h| h.v == from_v && h.game == game_id);
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
        let mut parts = match self.phase.game() {
            Some(g) => parts(g, &receivers, held.as_mut()),
            None => HashMap::new(),
        };
        let mut texts: HashMap<(Viewer, bool), ByteString> = HashMap::new();
        let events = self.history.last();
        for r in &receivers {
            let text = match texts.get(&(r.viewer, r.delta())) {
                Some(t) => t.clone(),
                None => {
                    let part = parts.get_mut(&r.viewer);
                    let (view, delta) = match part {
                        // taken only by the receiver it is for (one text per viewer and kind)
                        Some(p) => (p.view.as_ref(), if r.delta() { p.delta.take() } else { None }),
                        None => (None, None),
                    };
                    let body = match delta {
                        Some(d) => Body::Delta(d),
                        None => Body::Full(view.map(Cow::Borrowed)),
                    };
                    let t = self.update_text(r.viewer, (from_v, events), clock, body);
                    texts.insert((r.viewer, r.delta()), t.clone());
                    t
                }
            };
            if let Some(s) = self.subs.get(&r.conn_id) {
                s.tx.send_text(text);
            }
        }
        self.keep_views(&receivers, parts);
    }

    /// After an update: what each subscriber now holds, and the views the protocol-2 ones
    /// hold (the base of the next deltas).
    fn keep_views(&mut self, receivers: &[Receiver], parts: HashMap<Viewer, Part>) {
        let has_game = self.phase.game().is_some();
        for r in receivers {
            if let Some(s) = self.subs.get_mut(&r.conn_id) {
                s.seen = has_game.then_some(r.viewer);
            }
        }
        let views: HashMap<Viewer, View> = parts
            .into_iter()
            .filter(|(v, _)| receivers.iter().any(|r| r.deltas && r.viewer == *v))
            .filter_map(|(v, p)| Some((v, p.view?)))
            .collect();
        self.held = match self.phase.game() {
            Some(g) if !views.is_empty() => Some(Held {
                game: self.phase.game_id(),
                v: self.history.v(),
                base: g.clone(),
                views,
            }),
            _ => None,
        };
    }

    /// A subscriber was just sent the current version (a snapshot, or the missed events with
    /// its whole view): it holds its viewer's view now, the base of its next delta.
    pub(super) fn holds_current(&mut self, conn_id: u64) {
        let Some(s) = self.subs.get(&conn_id) else { return };
        let viewer = self.viewer(s.who.account_id);
        let Some(g) = self.phase.game() else { return };
        let deltas = s.tx.deltas();
        let (game, v) = (self.phase.game_id(), self.history.v());
        let current = |h: &Held| h.game == game && h.v == v && &h.base == g;
        if !self.held.as_ref().is_some_and(current) {
            self.held = Some(Held { game, v, base: g.clone(), views: HashMap::new() });
        }
        if let (true, Some(held)) = (deltas, self.held.as_mut()) {
            held.views.entry(viewer).or_insert_with(|| g.view(viewer));
        }
        if let Some(s) = self.subs.get_mut(&conn_id) {
            s.seen = Some(viewer);
        }
    }
}
