//! Live play over real WebSockets: one test binary (modules below) sharing the harness and the
//! socket client in `tests/support`.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
#[path = "../support/mod.rs"]
#[macro_use]
mod support;

mod between_games;
mod bots;
mod clock;
mod deltas;
mod endings;
mod game;
mod hardening;
mod hidden_front;
mod privacy;
mod protocol;
mod resync;
mod rooms;
mod sockets;
mod visitors;
