//! The HTTP API, the database and the `siguo` binary: one test binary (modules below) sharing
//! the harness in `tests/support`.
#![allow(clippy::unwrap_used)] // a test that unwraps an error fails, as it should
#[path = "../support/mod.rs"]
#[macro_use]
mod support;

mod accounts;
mod accounts_rules;
mod accounts_tokens;
mod cluster;
mod cluster_haproxy;
mod cluster_limits;
mod cluster_nodes;
mod cluster_privacy;
mod cluster_proxy;
mod cluster_queue;
mod cluster_rooms;
mod cluster_sessions;
mod db_group;
mod engine;
mod hardening;
mod referee;
mod review_three;
mod server_ops;
