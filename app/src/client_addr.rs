//! The client's address, as the login throttle counts it: the TCP peer,
//! unless the peer is a configured trusted proxy (`PARACROWD_TRUSTED_PROXIES`), in which case
//! `X-Forwarded-For` is read from the right, past every trusted hop, to the first address a
//! trusted proxy vouches for. A header from anyone else is ignored: a client cannot pick the
//! address it is counted under.
use std::net::IpAddr;

/// Networks whose hosts are proxies in front of the app (addresses or CIDR blocks).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<(IpAddr, u8)>);

impl TrustedProxies {
    /// Parses a comma-separated list such as `127.0.0.1, 10.0.0.0/8, ::1`.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut nets = Vec::new();
        for item in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (addr, bits) = match item.split_once('/') {
                Some((a, b)) => (a, Some(b)),
                None => (item, None),
            };
            let addr: IpAddr = addr
                .parse()
                .map_err(|_| format!("'{item}' is not an IP address or CIDR block"))?;
            let addr = addr.to_canonical();
            let max = if addr.is_ipv4() { 32 } else { 128 };
            let bits = match bits {
                Some(b) => b
                    .parse::<u8>()
                    .ok()
                    .filter(|b| *b <= max)
                    .ok_or_else(|| format!("'{item}' has a bad prefix length"))?,
                None => max,
            };
            nets.push((addr, bits));
        }
        Ok(Self(nets))
    }

    /// These networks and `other`'s.
    pub fn and(mut self, other: &TrustedProxies) -> Self {
        self.0.extend_from_slice(&other.0);
        self
    }

    /// Whether no proxy is trusted.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is a trusted proxy.
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|&(net, bits)| in_network(ip, net, bits))
    }

    /// The client behind `peer`, given the request's `X-Forwarded-For` header values in order.
    pub fn client(&self, peer: IpAddr, forwarded_for: &[&str]) -> IpAddr {
        let mut client = peer.to_canonical();
        if !self.contains(client) {
            return client;
        }
        let hops = forwarded_for
            .iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        for hop in hops.iter().rev() {
            match parse_hop(hop) {
                Some(ip) => {
                    client = ip;
                    if !self.contains(ip) {
                        break;
                    }
                }
                // Garbage in the chain: trust nothing beyond it.
                None => break,
            }
        }
        client
    }
}

/// The address a client is counted under by the per-address limits (failed logins, account
/// creation, the connection share): an IPv4 address itself, an IPv6 address's /64 network. One
/// host is usually given a whole /64, so counting each of its 2^64 addresses apart would let it
/// pass every per-address limit by changing address.
pub fn counted_as(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6((u128::from(v6) & (u128::MAX << 64)).into()),
        v4 => v4,
    }
}

/// One `X-Forwarded-For` entry: an address, IPv6 possibly bracketed, possibly with a port.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(sock) = hop.parse::<std::net::SocketAddr>() {
        return Some(sock.ip().to_canonical());
    }
    hop.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .and_then(|h| h.parse::<IpAddr>().ok())
        .map(|ip| ip.to_canonical())
}

fn in_network(ip: IpAddr, net: IpAddr, bits: u8) -> bool {
    match (ip, net) {
        (IpAddr::V4(a), IpAddr::V4(n)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            u32::from(a) & mask == u32::from(n) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(n)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            u128::from(a) & mask == u128::from(n) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn without_trusted_proxies_the_header_is_ignored() {
        let none = TrustedProxies::default();
        assert_eq!(
            none.client(ip("198.51.100.9"), &["203.0.113.7"]),
            ip("198.51.100.9")
        );
    }

    #[test]
    fn a_header_from_an_untrusted_peer_is_ignored() {
        let t = TrustedProxies::parse("10.0.0.0/8").unwrap();
        assert_eq!(
            t.client(ip("198.51.100.9"), &["203.0.113.7"]),
            ip("198.51.100.9")
        );
    }

    #[test]
    fn the_chain_is_read_from_the_right_past_trusted_hops() {
        let t = TrustedProxies::parse("127.0.0.1, 10.0.0.0/8").unwrap();
        // client, spoofed entry the client sent, then what our proxies appended.
        let xff = ["1.2.3.4, 203.0.113.7", "10.1.2.3"];
        assert_eq!(t.client(ip("127.0.0.1"), &xff), ip("203.0.113.7"));
        // Every hop trusted: the leftmost.
        assert_eq!(t.client(ip("127.0.0.1"), &["10.0.0.5"]), ip("10.0.0.5"));
        // No header: the proxy itself.
        assert_eq!(t.client(ip("127.0.0.1"), &[]), ip("127.0.0.1"));
        // Garbage stops the walk at the last good hop.
        assert_eq!(
            t.client(ip("127.0.0.1"), &["203.0.113.7, junk"]),
            ip("127.0.0.1")
        );
    }

    #[test]
    fn ipv6_clients_are_counted_by_their_64_bit_network() {
        assert_eq!(counted_as(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(
            counted_as(ip("2001:db8:1:2:ffff:ffff:ffff:ffff")),
            counted_as(ip("2001:db8:1:2::7"))
        );
        assert_ne!(
            counted_as(ip("2001:db8:1:3::1")),
            counted_as(ip("2001:db8:1:2::1"))
        );
        assert_eq!(counted_as(ip("203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(counted_as(ip("::ffff:203.0.113.7")), ip("203.0.113.7"));
    }

    #[test]
    fn ipv6_ports_brackets_and_mapped_addresses() {
        let t = TrustedProxies::parse("::1, 127.0.0.1").unwrap();
        assert!(t.contains(ip("::ffff:127.0.0.1")));
        assert_eq!(
            t.client(ip("::1"), &["[2001:db8::7]:443"]),
            ip("2001:db8::7")
        );
        assert_eq!(
            t.client(ip("::1"), &["203.0.113.7:5555"]),
            ip("203.0.113.7")
        );
        assert!(TrustedProxies::parse("10.0.0.0/33").is_err());
        assert!(TrustedProxies::parse("proxy.example").is_err());
        assert!(TrustedProxies::parse("").unwrap().is_empty());
        assert!(TrustedProxies::parse("0.0.0.0/0")
            .unwrap()
            .contains(ip("8.8.8.8")));
    }
}
