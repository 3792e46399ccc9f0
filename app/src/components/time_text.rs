//! Times as pages show them: an RFC 3339 instant from the server, to the minute, in UTC, said so.

/// `2026-11-27T15:24:21.158654Z` → `2026-11-27 15:24 UTC`. Text that is not such an instant is
/// shown as it is.
pub fn utc_minute(rfc3339: &str) -> String {
    let b = rfc3339.as_bytes();
    let in_utc = rfc3339.ends_with('Z') || rfc3339.ends_with("+00:00");
    let looks_right = b.len() >= 16 && b[4] == b'-' && b[10] == b'T' && b[13] == b':';
    match (rfc3339.get(..10), rfc3339.get(11..16)) {
        (Some(day), Some(minute)) if looks_right && in_utc => format!("{day} {minute} UTC"),
        _ => rfc3339.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_to_the_minute_in_utc() {
        assert_eq!(
            utc_minute("2026-11-27T15:24:21.158654Z"),
            "2026-11-27 15:24 UTC"
        );
        assert_eq!(utc_minute("2026-11-27T15:24:00Z"), "2026-11-27 15:24 UTC");
        assert_eq!(utc_minute("yesterday"), "yesterday");
        assert_eq!(utc_minute(""), "");
        // Another offset is not called UTC; text that is not ASCII does not break it.
        assert_eq!(
            utc_minute("2026-11-27T15:24:21+02:00"),
            "2026-11-27T15:24:21+02:00"
        );
        assert_eq!(utc_minute("2026-11-27T1é:24:21Z"), "2026-11-27T1é:24:21Z");
    }
}
