//! Siguo server library: everything `siguo` (the binary) runs, importable by tests.
pub mod db;
pub mod error;
