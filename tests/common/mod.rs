//! Only for `tests/loadtest.rs` (`mod common;`) until it moves out of this crate: the harness is
//! `tests/support`.
#[path = "../support/mod.rs"]
mod support;
pub use support::*;
