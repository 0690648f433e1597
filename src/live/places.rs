//! The places an account (and a client address) holds against its limits: its rooms and
//! practice games, and its sockets — counted by this node's registry and sessions, and for every
//! node together through the [`Directory`](super::directory::Directory) (`hold`, `places`).
use super::directory::{HeldPlace, PlaceKind, PlaceOp};
use super::{registry, sessions, Live};
use crate::error::AppResult;
use std::net::IpAddr;

/// A place among an account's rooms held while its game is made ([`Live::reserve_room`]);
/// given back if dropped before [`Live::replace_room`].
pub(crate) struct RoomReservation {
    live: Live,
    account_id: i64,
    key: String,
}

impl Drop for RoomReservation {
    fn drop(&mut self) {
        // after replace_room the key is gone already and this removes nothing
        self.live.release_room(self.account_id, &self.key);
    }
}

impl Live {
    /// Count room `id` against `account_id`'s rooms, or `too_many_rooms` (this node's count:
    /// a practice game started without a reservation).
    pub(crate) fn claim_room(&self, account_id: i64, id: &str) -> AppResult<()> {
        self.inner.registry.claim_room(account_id, None, id)?;
        let place = HeldPlace { kind: PlaceKind::Room, place: id.into(), account_id, ip: None };
        self.directory().places(PlaceOp::Keep(place));
        Ok(())
    }
    /// Count room `id` against `account_id`'s rooms whatever their number (restored games).
    pub(crate) fn count_room(&self, account_id: i64, id: &str) {
        self.inner.registry.count_room(account_id, id);
        let place = HeldPlace { kind: PlaceKind::Room, place: id.into(), account_id, ip: None };
        self.directory().places(PlaceOp::Keep(place));
    }
    /// Hold one of `account_id`'s rooms before the room or game is made, so that concurrent
    /// requests — here, or on other nodes — cannot pass the check together; the held place
    /// becomes the room's ([`Live::replace_room`]) or is given back when the reservation is
    /// dropped.
    pub(crate) async fn reserve_room(
        &self,
        account_id: i64,
        ip: IpAddr,
    ) -> AppResult<RoomReservation> {
        let key = format!("reserved-{}", uuid::Uuid::new_v4());
        self.inner.registry.claim_room(account_id, Some(ip), &key)?;
        let reserved = RoomReservation { live: self.clone(), account_id, key: key.clone() };
        let (mine, from_ip) = self.inner.registry.rooms_held(account_id, Some(ip));
        let here = (mine.saturating_sub(1), from_ip.saturating_sub(1));
        let c = &self.inner.config;
        let max = (c.max_rooms_per_account, c.max_rooms_per_ip);
        let place = HeldPlace { kind: PlaceKind::Room, place: key, account_id, ip: Some(ip) };
        if !self.directory().hold(place, here, max).await? {
            return Err(match here.0 + 1 >= max.0 {
                true => registry::too_many_rooms(max.0),
                false => registry::too_many_rooms_from_address(max.1),
            });
        }
        Ok(reserved)
    }
    /// The reserved place now counts as room `id`.
    pub(crate) fn replace_room(&self, r: RoomReservation, id: &str) {
        self.inner.registry.rename_room(r.account_id, &r.key, id);
        let (from, to) = (r.key.clone(), id.to_string());
        self.directory().places(PlaceOp::Rename { kind: PlaceKind::Room, from, to });
    }
    /// Room `id` no longer counts against its owner (finished or closed).
    pub(crate) fn release_room(&self, account_id: i64, id: &str) {
        self.inner.registry.release_room(account_id, id);
        let place = id.to_string();
        self.directory().places(PlaceOp::Release { kind: PlaceKind::Room, place });
    }
    /// A place for one more socket of `account_id` from `ip` — on this node, and on every node
    /// together (cluster) — or `too_many_sockets`; returns the socket's connection id. Give it
    /// back with [`Live::socket_closed`].
    pub async fn socket_place(&self, account_id: i64, ip: IpAddr) -> AppResult<u64> {
        let here = self.inner.sessions.counts(account_id, ip);
        let conn_id = self.next_conn_id();
        let c = &self.inner.config;
        let max = (c.max_sockets_per_account, c.max_sockets_per_ip);
        let place = HeldPlace {
            kind: PlaceKind::Socket,
            place: conn_id.to_string(),
            account_id,
            ip: Some(ip),
        };
        if !self.directory().hold(place, here, max).await? {
            return Err(sessions::too_many_sockets());
        }
        Ok(conn_id)
    }
    /// Socket `conn_id` (of [`Live::socket_place`]) closed.
    pub(crate) fn socket_closed(&self, conn_id: u64) {
        let place = conn_id.to_string();
        self.directory().places(PlaceOp::Release { kind: PlaceKind::Socket, place });
    }
}
