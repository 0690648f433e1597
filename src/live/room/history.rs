//! The resync history (like lila-ws's `History`): the room's version and the public events of
//! its last versions, kept as JSON text (every room holds up to `resync_log` of them).
use super::super::protocol::RawEvent;
use std::collections::VecDeque;

pub(super) struct History {
    v: u64,
    log: VecDeque<(u64, Vec<RawEvent>)>,
    capacity: usize,
}

/// What a client at some version needs to catch up.
pub(super) enum Catchup {
    /// already current
    Current,
    /// every event since its version, in order
    Events(Vec<RawEvent>),
    /// too old, unknown or from before a restart: a snapshot
    Snapshot,
}

impl History {
    pub fn new(v: u64, capacity: usize) -> History {
        History { v, log: VecDeque::new(), capacity }
    }

    /// The current version.
    pub fn v(&self) -> u64 {
        self.v
    }

    /// Record a new version with these events; returns the version before it.
    pub fn push(&mut self, events: Vec<RawEvent>) -> u64 {
        let from_v = self.v;
        self.v += 1;
        self.log.push_back((self.v, events));
        while self.log.len() > self.capacity.max(1) {
            self.log.pop_front();
        }
        from_v
    }

    /// The events of the last version (for a snapshot's `last_events`).
    pub fn last(&self) -> &[RawEvent] {
        self.log.back().map(|(_, e)| e.as_slice()).unwrap_or_default()
    }

    /// How a client that applied version `v` catches up.
    pub fn since(&self, v: u64) -> Catchup {
        if v == self.v {
            return Catchup::Current;
        }
        match self.log.front() {
            Some((first, _)) if v + 1 >= *first && v < self.v => Catchup::Events(
                self.log
                    .iter()
                    .filter(|(x, _)| *x > v)
                    .flat_map(|(_, e)| e.iter().cloned())
                    .collect(),
            ),
            _ => Catchup::Snapshot,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(n: u64) -> Vec<RawEvent> {
        vec![serde_json::value::to_raw_value(&n).unwrap()]
    }

    #[test]
    fn catches_up_from_the_log_or_asks_for_a_snapshot() {
        let mut h = History::new(10, 2);
        assert!(matches!(h.since(10), Catchup::Current));
        assert!(matches!(h.since(9), Catchup::Snapshot));
        h.push(ev(11));
        h.push(ev(12));
        let from = h.push(ev(13));
        assert_eq!((from, h.v(), h.last().len()), (12, 13, 1));
        // versions 12 and 13 are kept: a client at 11 gets both, one at 10 a snapshot
        match h.since(11) {
            Catchup::Events(e) => {
                assert_eq!(e.iter().map(|r| r.get()).collect::<Vec<_>>(), ["12", "13"])
            }
            _ => panic!("expected events"),
        }
        assert!(matches!(h.since(10), Catchup::Snapshot));
        assert!(matches!(h.since(14), Catchup::Snapshot));
        assert_eq!(h.last()[0].get(), "13");
    }
}
