//! Who sent a request: the client's address, and the scheme and host it used.
//!
//! Behind a reverse proxy the TCP peer is the proxy, and the client's address, scheme and host
//! arrive in headers — which any client can send too. They are believed only from the proxies
//! listed in `server.trusted_proxies` (addresses or CIDRs; empty by default: nobody is trusted):
//!
//! * the address: when the TCP peer is a trusted proxy, `X-Forwarded-For` is read from the right
//!   (the entries the nearest proxies appended) past every trusted proxy, and the first address
//!   that is not one is the client; otherwise the TCP peer is the client. Whatever a client
//!   writes to the left of its own address is never reached.
//! * the scheme and host: from a trusted peer, `X-Forwarded-Proto` and `X-Forwarded-Host` (the
//!   last value of each, as the nearest proxy set it), else the connection's own scheme and the
//!   `Host` header.
//! * `Forwarded` (RFC 7239) is never read: one header per fact, the `X-Forwarded-*` family that
//!   HAProxy, nginx and most load balancers write (deploy/haproxy.cfg deletes the client's and
//!   sets its own).
//!
//! Every per-address rule uses [`Client::ip`] (or its [`Client::bucket`]): the login,
//! registration, guest and invite limits, the socket caps, the `/metrics` allow-list and the
//! ranked same-address rule. The Origin check of WebSockets and state-changing requests compares
//! the whole origin, scheme included, with [`Client::origin`].
use actix_web::http::header;
use actix_web::HttpRequest;
use ipnet::IpNet;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::net::{IpAddr, SocketAddr};

/// `server.trusted_proxies`: the reverse proxies whose forwarded headers are believed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl TrustedProxies {
    /// Parse addresses or CIDRs (`10.0.0.5`, `10.0.0.0/8`, `::1`, `fd00::/8`).
    pub fn parse<'a>(items: impl IntoIterator<Item = &'a str>) -> Result<TrustedProxies, String> {
        let mut nets = vec![];
        for item in items {
            let item = item.trim();
            let net = match item.parse::<IpNet>() {
                Ok(net) => net.trunc(),
                Err(_) => match item.parse::<IpAddr>() {
                    Ok(ip) => IpNet::from(ip.to_canonical()),
                    Err(_) => {
                        return Err(format!(
                            "server.trusted_proxies: {item:?} is neither an IP address nor a CIDR \
                             (such as 10.0.0.0/8)"
                        ))
                    }
                },
            };
            nets.push(net);
        }
        Ok(TrustedProxies(nets))
    }

    /// Is `ip` one of the trusted proxies?
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl Serialize for TrustedProxies {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(|n| n.to_string()))
    }
}

/// A list of strings, or one string of comma-separated items (handy in an environment variable:
/// `SIGUO_SERVER__TRUSTED_PROXIES=127.0.0.1,10.0.0.0/8`).
impl<'de> Deserialize<'de> for TrustedProxies {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(String),
            Many(Vec<String>),
        }
        let items = match OneOrMany::deserialize(d)? {
            OneOrMany::One(s) => s.split(',').map(str::to_string).collect(),
            OneOrMany::Many(v) => v,
        };
        let items = items.iter().map(String::as_str).filter(|s| !s.trim().is_empty());
        TrustedProxies::parse(items).map_err(serde::de::Error::custom)
    }
}

/// The client's address: the TCP `peer`, or — when the peer is a trusted proxy — the nearest
/// address in `forwarded_for` (the `X-Forwarded-For` values, comma-separated, oldest first) that
/// is not a trusted proxy. An entry that is not an address stops the walk at the proxy that
/// appended it; a chain of trusted proxies only gives its first (leftmost) address.
pub fn client_address(peer: IpAddr, forwarded_for: &str, trusted: &TrustedProxies) -> IpAddr {
    let mut client = peer.to_canonical();
    if !trusted.contains(client) {
        return client;
    }
    for entry in forwarded_for.rsplit(',') {
        let Some(ip) = parse_entry(entry.trim()) else { break };
        client = ip;
        if !trusted.contains(ip) {
            break;
        }
    }
    client
}

/// An `X-Forwarded-For` entry: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1` or `[2001:db8::1]:4711`.
fn parse_entry(entry: &str) -> Option<IpAddr> {
    let ip = entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()))
        .or_else(|| entry.strip_prefix('[')?.strip_suffix(']')?.parse().ok())?;
    Some(ip.to_canonical())
}

/// The last comma-separated value of header `name` (as the nearest proxy set it), if any.
fn last_value<'r>(req: &'r HttpRequest, name: &str) -> Option<&'r str> {
    let value = req.headers().get_all(name).filter_map(|v| v.to_str().ok()).last()?;
    value.rsplit(',').next().map(str::trim).filter(|v| !v.is_empty())
}

/// Who sent a request, as far as the server can tell (see the module's header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Client {
    /// the client's address
    pub ip: IpAddr,
    /// `http` or `https`, as the client used it
    pub scheme: &'static str,
    /// the host (and port) the client asked for
    pub host: String,
}

impl Client {
    pub fn of(req: &HttpRequest, trusted: &TrustedProxies) -> Client {
        let peer = req.peer_addr().map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip().to_canonical());
        let own_host = || {
            req.headers()
                .get(header::HOST)
                .and_then(|h| h.to_str().ok())
                .map(str::to_string)
                .or_else(|| req.uri().authority().map(|a| a.to_string()))
                .unwrap_or_else(|| req.app_config().host().to_string())
        };
        let own_scheme = if req.app_config().secure() { "https" } else { "http" };
        if !trusted.contains(peer) {
            return Client { ip: peer, scheme: own_scheme, host: own_host() };
        }
        let forwarded_for: Vec<&str> =
            req.headers().get_all("x-forwarded-for").filter_map(|v| v.to_str().ok()).collect();
        let scheme = match last_value(req, "x-forwarded-proto") {
            Some(p) if p.eq_ignore_ascii_case("https") => "https",
            Some(p) if p.eq_ignore_ascii_case("http") => "http",
            _ => own_scheme,
        };
        Client {
            ip: client_address(peer, &forwarded_for.join(","), trusted),
            scheme,
            host: last_value(req, "x-forwarded-host").map_or_else(own_host, str::to_string),
        }
    }

    /// The address as rate limits and the ranked same-address rule count it (IPv6 by its /64,
    /// see `auth::limits::ip_bucket`).
    pub fn bucket(&self) -> IpAddr {
        crate::auth::limits::ip_bucket(self.ip)
    }

    pub fn https(&self) -> bool {
        self.scheme == "https"
    }

    /// This server's origin as the client sees it: `scheme://host[:port]`.
    pub fn origin(&self) -> String {
        format!("{}://{}", self.scheme, self.host)
    }
}

/// May this request change state or open a WebSocket? Yes without an `Origin` header (not a
/// browser), with our own origin as the client sees it ([`Client::origin`]: scheme, host and
/// port alike), or with one of `allowed` (`server.allowed_origins`, `*` for any).
pub fn origin_allowed(req: &HttpRequest, allowed: &[String], trusted: &TrustedProxies) -> bool {
    let Some(origin) = req.headers().get(header::ORIGIN) else { return true };
    let Ok(origin) = origin.to_str() else { return false };
    if allowed.iter().any(|a| a == "*" || a.eq_ignore_ascii_case(origin)) {
        return true;
    }
    same_origin(origin, &Client::of(req, trusted).origin())
}

/// Two origins alike, ignoring case and a default port (`:80` for http, `:443` for https).
fn same_origin(a: &str, b: &str) -> bool {
    fn normal(origin: &str) -> String {
        let o = origin.trim_end_matches('/').to_ascii_lowercase();
        match o.split_once("://") {
            Some(("http", host)) => format!("http://{}", host.strip_suffix(":80").unwrap_or(host)),
            Some(("https", host)) => {
                format!("https://{}", host.strip_suffix(":443").unwrap_or(host))
            }
            _ => o,
        }
    }
    normal(a) == normal(b)
}

/// The client's address (see the module's header).
pub fn client_ip(req: &HttpRequest, trusted: &TrustedProxies) -> IpAddr {
    Client::of(req, trusted).ip
}

/// The client's address as rate limits count it (IPv6 by its /64).
pub fn client_bucket(req: &HttpRequest, trusted: &TrustedProxies) -> IpAddr {
    Client::of(req, trusted).bucket()
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn trusted(items: &[&str]) -> TrustedProxies {
        TrustedProxies::parse(items.iter().copied()).unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let none = TrustedProxies::default();
        assert_eq!(client_address(ip("198.51.100.7"), "127.0.0.1", &none), ip("198.51.100.7"));
        let lb = trusted(&["10.0.0.0/8"]);
        assert_eq!(client_address(ip("198.51.100.7"), "127.0.0.1", &lb), ip("198.51.100.7"));
        // an IPv4-mapped peer is its IPv4 address
        let mapped = ip("::ffff:198.51.100.7");
        assert_eq!(client_address(mapped, "10.1.1.1", &lb), ip("198.51.100.7"));
    }

    #[test]
    fn a_trusted_chain_gives_the_nearest_untrusted_address() {
        let lb = trusted(&["10.0.0.0/8", "192.0.2.1"]);
        // the client's own (spoofed) entries lie to the left of what the proxies appended
        let xff = "127.0.0.1, 203.0.113.9, 198.51.100.7, 10.0.0.3";
        assert_eq!(client_address(ip("192.0.2.1"), xff, &lb), ip("198.51.100.7"));
        assert_eq!(client_address(ip("10.0.0.2"), "198.51.100.7:4711", &lb), ip("198.51.100.7"));
        let v6 = "[2001:db8::5]:4711";
        assert_eq!(client_address(ip("10.0.0.2"), v6, &lb), ip("2001:db8::5"));
        // no header: the proxy itself (e.g. its health checks)
        assert_eq!(client_address(ip("10.0.0.2"), "", &lb), ip("10.0.0.2"));
        // only proxies: the leftmost
        assert_eq!(client_address(ip("10.0.0.2"), "10.0.0.9, 10.0.0.3", &lb), ip("10.0.0.9"));
        // an unreadable entry stops the walk at the proxy that appended it
        let bad = "198.51.100.7, unknown, 10.0.0.3";
        assert_eq!(client_address(ip("10.0.0.2"), bad, &lb), ip("10.0.0.3"));
    }

    #[test]
    fn ipv6_clients_share_a_bucket_per_64() {
        let lb = trusted(&["::1"]);
        let a = Client { ip: client_address(ip("::1"), "2001:db8:0:7::1", &lb), ..client() };
        let b = Client { ip: ip("2001:db8:0:7:ffff::9"), ..client() };
        let c = Client { ip: ip("2001:db8:0:8::1"), ..client() };
        assert_eq!(a.bucket(), b.bucket());
        assert_ne!(a.bucket(), c.bucket());
        assert_eq!(Client { ip: ip("192.0.2.4"), ..client() }.bucket(), ip("192.0.2.4"));
    }

    fn client() -> Client {
        Client { ip: ip("0.0.0.0"), scheme: "http", host: String::new() }
    }

    #[test]
    fn scheme_and_host_come_from_a_trusted_proxy_only() {
        let lb = trusted(&["127.0.0.1"]);
        let req = |peer: &str| {
            TestRequest::default()
                .peer_addr(format!("{peer}:5000").parse().unwrap())
                .insert_header(("Host", "siguo.example"))
                .insert_header(("X-Forwarded-For", "203.0.113.9"))
                .insert_header(("X-Forwarded-Proto", "https"))
                .insert_header(("X-Forwarded-Host", "evil.example"))
                .insert_header(("Forwarded", "for=192.0.2.60;proto=https;host=evil.example"))
                .to_http_request()
        };
        let from_lb = Client::of(&req("127.0.0.1"), &lb);
        assert_eq!(from_lb.ip, ip("203.0.113.9"));
        assert_eq!(from_lb.origin(), "https://evil.example");
        let direct = Client::of(&req("198.51.100.7"), &lb);
        assert_eq!(direct.ip, ip("198.51.100.7"));
        assert_eq!(direct.origin(), "http://siguo.example", "Host, and the connection's scheme");
        let nobody = Client::of(&req("127.0.0.1"), &TrustedProxies::default());
        assert_eq!((nobody.ip, nobody.origin()), (ip("127.0.0.1"), "http://siguo.example".into()));
    }

    #[test]
    fn the_origin_check_compares_scheme_host_and_port() {
        let none = TrustedProxies::default();
        let with = |origin: &str| {
            TestRequest::default()
                .peer_addr("198.51.100.7:5000".parse().unwrap())
                .insert_header(("Host", "siguo.example"))
                .insert_header(("Origin", origin))
                .insert_header(("X-Forwarded-Host", "evil.example"))
                .to_http_request()
        };
        assert!(origin_allowed(&with("http://siguo.example"), &[], &none));
        assert!(origin_allowed(&with("HTTP://Siguo.Example:80"), &[], &none));
        assert!(!origin_allowed(&with("https://siguo.example"), &[], &none), "another scheme");
        assert!(!origin_allowed(&with("http://siguo.example:8080"), &[], &none), "another port");
        assert!(!origin_allowed(&with("http://evil.example"), &[], &none), "X-Forwarded-Host");
        let allowed = vec!["https://app.example".to_string()];
        assert!(origin_allowed(&with("https://app.example"), &allowed, &none));
        let no_origin = TestRequest::default().to_http_request();
        assert!(origin_allowed(&no_origin, &[], &none), "not a browser");
    }

    #[test]
    fn trusted_proxies_parse_addresses_cidrs_and_a_comma_list() {
        let t: TrustedProxies = serde_json::from_str(r#""127.0.0.1, 10.0.0.0/8""#).unwrap();
        assert!(t.contains(ip("10.200.0.1")) && t.contains(ip("::ffff:127.0.0.1")));
        let t: TrustedProxies = serde_json::from_str(r#"["::1", "fd00::/8"]"#).unwrap();
        assert!(t.contains(ip("::1")) && t.contains(ip("fd12::1")) && !t.contains(ip("::2")));
        assert!(serde_json::from_str::<TrustedProxies>(r#"["lb.internal"]"#).is_err());
        let t: TrustedProxies = serde_json::from_str(r#""""#).unwrap();
        assert!(t.is_empty());
    }
}
