//! Siguo server library: everything `siguo` (the binary) runs, importable by tests.
pub mod cli;
pub mod db;
pub mod error;
pub mod ladder;
