//! The event codec: bincode 2.0.1 through serde with one fixed configuration.
//! This is the only module that turns events into bytes and back.
//!
//! **Invariant:** the configuration never changes. It is part of the format
//! (see `format::FORMAT_VERSION`): little-endian, variable-length integers,
//! and a decode limit (`DECODE_CLAIM_BYTES_MAX`) so a damaged length can
//! never make the decoder allocate without bound.

use crate::event::Event;
use crate::limits::EVENT_BYTES_MAX;
use crate::words::Words;

/// The decoder counts the in-memory size of every value it reads against its
/// limit (8 bytes for a `u64` whose varint took 1 byte), not the bytes it
/// consumed. An event's fields are at most 8 bytes wide in memory per encoded
/// byte, so this bound lets every event of up to `EVENT_BYTES_MAX` encoded
/// bytes decode (a limit of `EVENT_BYTES_MAX` itself refused events the log
/// had accepted) while still capping what a damaged length can allocate.
const DECODE_CLAIM_BYTES_MAX: usize = 8 * EVENT_BYTES_MAX;

/// The limit only affects decoding; encoding ignores it.
fn config() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_variable_int_encoding()
        .with_limit::<DECODE_CLAIM_BYTES_MAX>()
}

/// Why an event could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct CodecError(pub String);

/// Appends the encoding of `event` to `out` and returns its length.
pub fn encode_into(event: &Event, out: &mut Vec<u8>) -> Result<usize, CodecError> {
    let before = out.len();
    bincode::serde::encode_into_std_write(event, out, config())
        .map_err(|e| CodecError(e.to_string()))?;
    Ok(out.len() - before)
}

/// The encoding of `event`.
pub fn encode(event: &Event) -> Result<Vec<u8>, CodecError> {
    let mut out = Vec::new();
    encode_into(event, &mut out)?;
    Ok(out)
}

/// Decodes exactly one event from `bytes`; trailing bytes are an error.
pub fn decode(bytes: &[u8]) -> Result<Event, CodecError> {
    let (event, used) = bincode::serde::decode_from_slice::<Event, _>(bytes, config())
        .map_err(|e| CodecError(e.to_string()))?;
    if used != bytes.len() {
        return Err(CodecError(format!(
            "{} trailing bytes after the event",
            bytes.len() - used
        )));
    }
    Ok(event)
}

/// Appends the encoding of an event's words (`words`) to `out`.
pub(crate) fn encode_words_into(words: &Words, out: &mut Vec<u8>) -> Result<usize, CodecError> {
    let before = out.len();
    bincode::serde::encode_into_std_write(words, out, config())
        .map_err(|e| CodecError(e.to_string()))?;
    Ok(out.len() - before)
}

/// Decodes exactly one event's words from `bytes`.
pub(crate) fn decode_words(bytes: &[u8]) -> Result<Words, CodecError> {
    let (words, used) = bincode::serde::decode_from_slice::<Words, _>(bytes, config())
        .map_err(|e| CodecError(e.to_string()))?;
    if used != bytes.len() {
        return Err(CodecError(format!(
            "{} trailing bytes after the words",
            bytes.len() - used
        )));
    }
    Ok(words)
}
