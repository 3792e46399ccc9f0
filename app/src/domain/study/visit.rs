//! Where a study link was opened from, kept so that accounts opened from one place can be
//! shown together: the network (an IPv4 address; an IPv6 address's /64, which one household or
//! phone gets) and the browser's signature (its User-Agent and Accept-Language, as sent). The
//! database keeps only a SHA-256 digest of each, salted with the campaign's id, so a researcher
//! sees which accounts share one and never the address. The keys are made here; the digest is
//! taken as they are stored (`db::studies::record_visit`).
//!
//! Two accounts that opened the link from the same network with the same browser signature are
//! one group. A shared network alone is not: a campus, an office or a mobile carrier puts many
//! people behind one address. Neither proves anything (two people in one household with the
//! same phone model); it is shown for a researcher to weigh with the answers.
use std::net::IpAddr;

/// The longest part of a browser signature kept (headers beyond this are cut).
pub const MAX_HEADER_CHARS: usize = 512;

/// The network key of `ip`: `v4:<address>`, or `v6:<first four groups>` (the /64). An IPv4
/// address mapped into IPv6 is the IPv4 address.
pub fn network_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => format!("v4:{v4}"),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => format!("v4:{v4}"),
            None => {
                let s = v6.segments();
                format!("v6:{:x}:{:x}:{:x}:{:x}", s[0], s[1], s[2], s[3])
            }
        },
    }
}

/// The browser key of a visit's headers (missing ones empty), each cut to
/// [`MAX_HEADER_CHARS`] characters and trimmed.
pub fn browser_key(user_agent: Option<&str>, accept_language: Option<&str>) -> String {
    let cut = |s: Option<&str>| -> String {
        s.unwrap_or_default()
            .chars()
            .take(MAX_HEADER_CHARS)
            .collect::<String>()
            .trim()
            .to_owned()
    };
    format!("{}\n{}", cut(user_agent), cut(accept_language))
}

/// A visit's keys, as the study link's page records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VisitKeys {
    /// [`network_key`].
    pub network: String,
    /// [`browser_key`].
    pub browser: String,
}

impl VisitKeys {
    /// The keys of a visit from `ip` with these headers.
    pub fn of(ip: IpAddr, user_agent: Option<&str>, accept_language: Option<&str>) -> VisitKeys {
        VisitKeys {
            network: network_key(ip),
            browser: browser_key(user_agent, accept_language),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_household_is_its_64_and_a_mapped_ipv4_is_ipv4() {
        let a: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let b: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let c: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(network_key(a), "v6:2001:db8:1:2");
        assert_eq!(network_key(a), network_key(b));
        assert_ne!(network_key(a), network_key(c));
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(network_key(mapped), "v4:192.0.2.7");
        assert_eq!(network_key("192.0.2.7".parse().unwrap()), "v4:192.0.2.7");
        assert_ne!(network_key("192.0.2.8".parse().unwrap()), "v4:192.0.2.7");
    }

    #[test]
    fn the_browser_key_is_cut_and_trimmed() {
        assert_eq!(browser_key(None, None), "\n");
        assert_eq!(
            browser_key(Some(" Mozilla/5.0 (X11) "), Some("en-GB,en;q=0.9")),
            "Mozilla/5.0 (X11)\nen-GB,en;q=0.9"
        );
        let long = "x".repeat(2000);
        assert_eq!(browser_key(Some(&long), None).len(), MAX_HEADER_CHARS + 1);
        // Each header on its own: a header that moves text between the two is another browser.
        assert_ne!(
            browser_key(Some("a b"), Some("c")),
            browser_key(Some("a"), Some("b c"))
        );
    }
}
