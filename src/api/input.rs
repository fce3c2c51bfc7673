//! Bounded reads of what a caller hands the CLI as a stream (the text of
//! `remember -`, a batch file): an endless or huge input is refused at a
//! named limit, having read one byte past it, never read whole.

use std::io::Read;

use super::ApiError;

/// Most bytes of text one `remember` reads from a stream: no more fits in
/// one event (`engram_log::limits::EVENT_BYTES_MAX`). The gates then hold the
/// redacted text to `engram_commands::gate::CONTENT_BYTES_MAX`.
pub const TEXT_INPUT_BYTES_MAX: usize = engram_log::limits::EVENT_BYTES_MAX;

/// Most bytes of one batch file (`remember --items`): a batch is parsed
/// whole before anything is saved, so this bounds the memory it takes.
pub const BATCH_INPUT_BYTES_MAX: usize = 64 * 1024 * 1024;

fn read_bounded(
    input: impl Read,
    max: usize,
    limit: &str,
    what: &str,
) -> Result<Vec<u8>, ApiError> {
    let mut bytes = Vec::new();
    input
        .take(max as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ApiError::bad_request(format!("reading {what} failed: {e}")))?;
    if bytes.len() > max {
        return Err(ApiError::bad_request(format!(
            "{what} is over {max} bytes ({limit}): nothing was saved"
        )));
    }
    Ok(bytes)
}

/// The text of a `remember` read from `input` (named `what` in errors).
///
/// # Errors
/// `bad_request`: more than [`TEXT_INPUT_BYTES_MAX`] bytes, a read failure.
pub fn read_text_input(input: impl Read, what: &str) -> Result<Vec<u8>, ApiError> {
    read_bounded(input, TEXT_INPUT_BYTES_MAX, "TEXT_INPUT_BYTES_MAX", what)
}

/// A batch file read from `input` (named `what` in errors).
///
/// # Errors
/// `bad_request`: more than [`BATCH_INPUT_BYTES_MAX`] bytes, a read failure.
pub fn read_batch_input(input: impl Read, what: &str) -> Result<Vec<u8>, ApiError> {
    read_bounded(input, BATCH_INPUT_BYTES_MAX, "BATCH_INPUT_BYTES_MAX", what)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_at_the_limit_is_read_and_one_byte_more_is_refused() {
        let max = TEXT_INPUT_BYTES_MAX;
        let at = vec![b'a'; max];
        assert_eq!(read_text_input(at.as_slice(), "stdin").unwrap().len(), max);
        let err = read_text_input(std::io::repeat(0), "stdin").unwrap_err();
        assert!(
            err.message.contains("TEXT_INPUT_BYTES_MAX"),
            "{}",
            err.message
        );
        let err = read_batch_input(std::io::repeat(0), "the batch").unwrap_err();
        assert!(
            err.message.contains("BATCH_INPUT_BYTES_MAX"),
            "{}",
            err.message
        );
    }
}
