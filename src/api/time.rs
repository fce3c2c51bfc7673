//! Times as the interfaces take them: RFC 3339 or an offset from now.

use std::time::{Duration, UNIX_EPOCH};

use super::ApiError;

/// Parses a time: RFC 3339 (`2026-12-01T09:00:00Z`) or an offset from `now`
/// into the future (`+2d`, `+12h`) or the past (`-1h`, `-30m`), as unix
/// milliseconds.
///
/// # Errors
/// `bad_request` naming the text when it is neither.
pub fn parse_time(text: &str, now: u64) -> Result<u64, ApiError> {
    if let Some((sign, offset)) = text
        .strip_prefix('+')
        .map(|o| ('+', o))
        .or_else(|| text.strip_prefix('-').map(|o| ('-', o)))
    {
        let duration = humantime::parse_duration(offset).map_err(|_| {
            ApiError::bad_request(format!("{text:?}: an offset is like +2d, +12h or -30m"))
        })?;
        let millis = u64::try_from(duration.as_millis()).unwrap_or(u64::MAX);
        return Ok(if sign == '+' {
            now.saturating_add(millis)
        } else {
            now.saturating_sub(millis)
        });
    }
    let time = humantime::parse_rfc3339_weak(text).map_err(|_| {
        ApiError::bad_request(format!(
            "{text:?}: give RFC 3339 (2026-12-01T09:00:00Z) or an offset (+2d, -1h)"
        ))
    })?;
    Ok(time
        .duration_since(UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_millis()
        .try_into()
        .unwrap_or(u64::MAX))
}

// The enums below are the one type of each family for every door: serde
// (HTTP, MCP), clap (the CLI's flag values) and schemars (inlined, so a
// schema carries a plain string enum, never a `$ref`). Their spellings are
// contracts.
