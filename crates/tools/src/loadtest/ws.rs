//! WebSocket client (tokio-tungstenite): connect with a bearer token, read typed server messages
//! into a channel, send typed actions.
use super::messages::{Outgoing, ServerMsg};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::{Error, Message};
use tokio_tungstenite::WebSocketStream;

pub type Ws = WebSocketStream<TcpStream>;
pub type WsSink = SplitSink<Ws, Message>;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// Open `ws://addr{path}` (`/api/ws`, or `/ws/n/{node}` in a cluster) authenticated by
/// `Authorization: Bearer <token>`.
pub async fn connect(addr: SocketAddr, path: &str, token: &str) -> Result<Ws, String> {
    tokio::time::timeout(CONNECT_TIMEOUT, handshake(addr, path, token))
        .await
        .map_err(|_| "ws connect: no answer in 60 s".to_string())?
}

async fn handshake(addr: SocketAddr, path: &str, token: &str) -> Result<Ws, String> {
    let stream = TcpStream::connect(addr).await.map_err(|e| format!("ws connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let mut req = format!("ws://{addr}{path}").into_client_request().map_err(|e| e.to_string())?;
    let bearer = format!("Bearer {token}").parse().map_err(|_| "bad token".to_string())?;
    req.headers_mut().insert("Authorization", bearer);
    match tokio_tungstenite::client_async(req, stream).await {
        Ok((ws, _)) => Ok(ws),
        Err(Error::Http(r)) => Err(format!("ws upgrade refused: HTTP {}", r.status())),
        Err(e) => Err(format!("ws upgrade: {e}")),
    }
}

/// What one socket of a table reports: a message (seat index, arrival time) or its end.
pub enum Incoming {
    Msg(usize, Instant, Box<ServerMsg>),
    Closed(usize, String),
}

/// Why a socket stopped delivering messages, for the error report.
pub fn end_reason(m: Option<Result<Message, Error>>) -> Option<String> {
    match m {
        Some(Ok(Message::Close(f))) => Some(format!("closed by server: {f:?}")),
        Some(Ok(_)) => None,
        Some(Err(e)) => Some(format!("socket error: {e}")),
        None => Some("socket ended".into()),
    }
}

/// Parse a text frame (`None` for other frames).
pub fn parse(m: &Message) -> Option<Result<ServerMsg, String>> {
    let Message::Text(text) = m else { return None };
    Some(serde_json::from_str(text.as_str()).map_err(|e| format!("unparsable server message: {e}")))
}

/// Forward the messages of seat `p`'s socket to the table until it closes.
pub async fn reader(p: usize, mut stream: SplitStream<Ws>, tx: mpsc::UnboundedSender<Incoming>) {
    loop {
        let m = stream.next().await;
        let at = Instant::now();
        let incoming = match m.as_ref().and_then(|r| r.as_ref().ok()).and_then(parse) {
            Some(Ok(msg)) => Incoming::Msg(p, at, Box::new(msg)),
            Some(Err(e)) => Incoming::Closed(p, e),
            None => match end_reason(m) {
                Some(why) => Incoming::Closed(p, why),
                None => continue,
            },
        };
        let last = matches!(incoming, Incoming::Closed(..));
        if tx.send(incoming).is_err() || last {
            return;
        }
    }
}

pub async fn send(sink: &mut WsSink, msg: &Outgoing<'_>) -> Result<(), String> {
    let text = serde_json::to_string(msg).map_err(|e| format!("send: {e}"))?;
    sink.send(Message::text(text)).await.map_err(|e| format!("send: {e}"))
}

/// Say goodbye (best effort).
pub async fn close(sink: &mut WsSink) {
    let _ = sink.send(Message::Close(None)).await;
    let _ = sink.close().await;
}
