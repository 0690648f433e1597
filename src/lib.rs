//! Siguo server library: everything `siguo` (the binary) runs, importable by tests.
pub mod app;
pub mod auth;
pub mod cli;
pub mod cluster;
pub mod config;
pub mod db;
pub mod error;
pub mod http;
pub mod ladder;
pub mod live;
pub mod metrics;
