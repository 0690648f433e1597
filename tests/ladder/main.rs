//! The ranked ladder: queues, recording, leaderboards and whole ranked games; one test binary
//! (modules below) sharing the harness in `tests/support`.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
#[path = "../support/mod.rs"]
#[macro_use]
mod support;

mod e2e;
mod fairness;
mod hidden_front;
mod http;
mod queue;
mod record;
