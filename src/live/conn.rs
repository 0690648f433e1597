//! One socket's outbound side as rooms see it: a bounded queue and a kill switch.
use super::protocol::ServerMsg;
use bytestring::ByteString;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use tokio::sync::{mpsc, Notify};

/// Outbound half of one socket: bounded; on overflow the socket is told to close.
#[derive(Clone)]
pub struct ClientTx {
    pub conn_id: u64,
    pub account_id: i64,
    /// the token generation of the access token the socket was opened with
    pub generation: i64,
    /// the client's address (bucketed, as limits count it)
    pub ip: std::net::IpAddr,
    /// the protocol version the socket speaks (docs/protocol.md §1): 2 takes deltas
    pub protocol: u8,
    tx: mpsc::Sender<ByteString>,
    kill: Arc<Kill>,
}

/// Why a socket is told to close: its outbound queue overflowed (1013), or its session ended
/// ([`CLOSE_SESSION_ENDED`]).
#[derive(Default)]
pub struct Kill {
    pub notify: Notify,
    /// 0 = outbound queue full; else the close code to send
    pub code: std::sync::atomic::AtomicU16,
}

/// Close code (4001) of a socket whose session ended: its access token expired, or the account
/// logged out or changed its password. The client refreshes its token and reconnects.
pub const CLOSE_SESSION_ENDED: u16 = 4001;

/// Close code (4009) of a socket whose room moved to another node (cluster mode: this node lost
/// the game's lease). The client asks `GET /api/games/{id}/node` and reconnects there.
pub const CLOSE_MOVED: u16 = 4009;

impl ClientTx {
    /// Close this socket with `code` (e.g. [`CLOSE_SESSION_ENDED`]).
    pub fn close_with(&self, code: u16) {
        self.kill.code.store(code, Ordering::Relaxed);
        self.kill.notify.notify_one();
    }

    /// Queue a message's text (a `ByteString` is shared, not copied, by every receiver).
    pub fn send_text(&self, text: ByteString) {
        match self.tx.try_send(text) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => self.kill.notify.notify_one(),
            Err(mpsc::error::TrySendError::Closed(_)) => {}
        }
    }
    /// Whether the socket takes deltas in its updates (protocol 2).
    pub fn deltas(&self) -> bool {
        self.protocol >= 2
    }
    pub fn send(&self, msg: &ServerMsg) {
        self.send_text(msg.to_text())
    }
}

/// Outbound queue length per socket.
pub const OUTBOUND_QUEUE: usize = 256;

/// Make a socket's outbound channel: the sender side for rooms, the receiver and kill switch for
/// the socket task.
pub fn client_channel(
    conn_id: u64,
    (account_id, generation, ip, protocol): (i64, i64, std::net::IpAddr, u8),
    capacity: usize,
) -> (ClientTx, mpsc::Receiver<ByteString>, Arc<Kill>) {
    let (tx, rx) = mpsc::channel(capacity.max(1));
    let kill = Arc::new(Kill::default());
    (ClientTx { conn_id, account_id, generation, ip, protocol, tx, kill: kill.clone() }, rx, kill)
}
