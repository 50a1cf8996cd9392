//! Where a live client resumes: the SSE `Last-Event-ID` header (or `?since=`).
//!
//! Why here, pure: the header comes from any client, hostile ones included, and the answer
//! decides between a replay of deltas and a fresh snapshot; a parser that is one function of
//! bytes can be unit-tested and fuzzed without a server. The server sends each event's id as
//! the feed version in plain decimal, so that is all a browser ever sends back.

use thiserror::Error;

/// The longest decimal `u64` (18446744073709551615).
const MAX_DIGITS: usize = 20;

/// Why a `Last-Event-ID` was refused; the client gets a 400 saying so.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LastEventIdError {
    /// Empty, or nothing but spaces.
    #[error("Last-Event-ID is empty")]
    Empty,
    /// Anything but ASCII digits (signs, exponents, control characters, other bytes).
    #[error("Last-Event-ID must be a version number sent by this server (decimal digits only)")]
    NotDecimal,
    /// More than a `u64` can hold.
    #[error("Last-Event-ID is larger than any version this server sends")]
    TooLarge,
}

/// The version a client last saw, from the raw header bytes. Spaces and tabs around it are
/// ignored (proxies add them); everything else must be decimal digits.
pub fn parse_last_event_id(raw: &[u8]) -> Result<u64, LastEventIdError> {
    let trimmed = raw.trim_ascii();
    if trimmed.is_empty() {
        return Err(LastEventIdError::Empty);
    }
    if !trimmed.iter().all(u8::is_ascii_digit) {
        return Err(LastEventIdError::NotDecimal);
    }
    let digits = match trimmed.iter().position(|&b| b != b'0') {
        Some(first) => &trimmed[first..],
        None => return Ok(0),
    };
    if digits.len() > MAX_DIGITS {
        return Err(LastEventIdError::TooLarge);
    }
    digits.iter().try_fold(0u64, |acc, &digit| {
        acc.checked_mul(10)
            .and_then(|acc| acc.checked_add(u64::from(digit - b'0')))
            .ok_or(LastEventIdError::TooLarge)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_the_server_sent_are_read_back() {
        assert_eq!(parse_last_event_id(b"42"), Ok(42));
        assert_eq!(parse_last_event_id(b" 42\t"), Ok(42));
        assert_eq!(parse_last_event_id(b"0"), Ok(0));
        assert_eq!(parse_last_event_id(b"000017"), Ok(17));
        assert_eq!(parse_last_event_id(b"18446744073709551615"), Ok(u64::MAX));
    }

    #[test]
    fn anything_else_is_refused_with_its_reason() {
        assert_eq!(parse_last_event_id(b""), Err(LastEventIdError::Empty));
        assert_eq!(parse_last_event_id(b"   "), Err(LastEventIdError::Empty));
        // `str::parse::<u64>` would take "+5": the server never sends a sign.
        for bad in [
            &b"+5"[..],
            b"-1",
            b"1e3",
            b"4\x002",
            b"\xff\xfe",
            b"12 34",
            b"0x10",
        ] {
            assert_eq!(
                parse_last_event_id(bad),
                Err(LastEventIdError::NotDecimal),
                "{bad:?}"
            );
        }
        assert_eq!(
            parse_last_event_id(b"18446744073709551616"),
            Err(LastEventIdError::TooLarge)
        );
        assert_eq!(
            parse_last_event_id(&[b'9'; 4096]),
            Err(LastEventIdError::TooLarge)
        );
    }
}
