//! Walking the frames of a segment: the one loop behind recovery, reads,
//! replay and verify.
//!
//! [`FrameCursor`] reads a segment in chunks through the storage seam and
//! yields frames whose blake3 hash checked out; [`Chain`] checks that they
//! follow each other (contiguous seq, previous-hash link, optionally HMAC).

use std::io;
use std::sync::Arc;

use crate::format::{
    FRAME_HEADER_LEN, FRAME_MAGIC, FrameHeader, FrameProblem, Hash, ParsedFrame, parse_frame,
};
use crate::key::HmacKey;
use crate::limits::INDEX_STRIDE_BYTES;
use crate::storage::StorageFile;

/// Chunk size for sequential reads (replay, verify, recovery).
pub(crate) const SEQUENTIAL_READ_BYTES: usize = 1024 * 1024;

/// File name of the segment whose first seq is `first_seq`.
#[must_use]
pub fn segment_name(first_seq: u64) -> String {
    format!("{first_seq:020}.seg")
}

/// The first seq named by a segment file name, or `None` for other files.
#[must_use]
pub fn parse_segment_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(".seg")?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// A failure while walking frames.
#[derive(Debug)]
pub(crate) enum CursorError {
    Io(io::Error),
    Bad { offset: u64, problem: FrameProblem },
}

/// Reads frames sequentially from `[start, end)` of one file.
#[derive(Debug)]
pub(crate) struct FrameCursor {
    file: Arc<dyn StorageFile>,
    end: u64,
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    buf_start: u64,
    /// Position of the next frame in `buf`.
    pos: usize,
    chunk: usize,
}

impl FrameCursor {
    pub(crate) fn new(file: Arc<dyn StorageFile>, start: u64, end: u64, chunk: usize) -> Self {
        Self {
            file,
            end,
            buf: Vec::new(),
            buf_start: start,
            pos: 0,
            chunk: chunk.max(FRAME_HEADER_LEN),
        }
    }

    /// File offset of the next frame.
    pub(crate) fn offset(&self) -> u64 {
        self.buf_start + self.pos as u64
    }

    /// Makes at least `n` bytes available from `pos`, or as many as remain
    /// before `end`. Returns how many are available.
    fn fill(&mut self, n: usize) -> io::Result<usize> {
        let have = self.buf.len() - self.pos;
        if have >= n {
            return Ok(have);
        }
        self.buf.drain(..self.pos);
        self.buf_start += self.pos as u64;
        self.pos = 0;
        let loaded_end = self.buf_start + self.buf.len() as u64;
        let remaining = self.end.saturating_sub(loaded_end);
        let want = n.max(self.chunk) - self.buf.len();
        let read = remaining.min(want as u64) as usize;
        if read > 0 {
            let old = self.buf.len();
            self.buf.resize(old + read, 0);
            let dst = self.buf.get_mut(old..).unwrap_or_default();
            self.file.read_exact_at(dst, loaded_end)?;
        }
        Ok(self.buf.len())
    }

    /// The next frame (hash checked), `None` at `end`.
    pub(crate) fn next_frame(&mut self) -> Result<Option<(u64, ParsedFrame<'_>)>, CursorError> {
        let offset = self.offset();
        if offset >= self.end {
            return Ok(None);
        }
        let bad = |problem| CursorError::Bad { offset, problem };
        let have = self.fill(FRAME_HEADER_LEN).map_err(CursorError::Io)?;
        let header_bytes = self
            .buf
            .get(self.pos..self.pos + have.min(FRAME_HEADER_LEN))
            .unwrap_or_default();
        let header = FrameHeader::decode(header_bytes).map_err(bad)?;
        let frame_len = header.frame_len();
        let have = self.fill(frame_len).map_err(CursorError::Io)?;
        if have < frame_len {
            return Err(bad(FrameProblem::Short));
        }
        let start = self.pos;
        self.pos += frame_len;
        let bytes = self.buf.get(start..start + frame_len).unwrap_or_default();
        let frame = parse_frame(bytes).map_err(bad)?;
        Ok(Some((offset, frame)))
    }
}

/// Which frames' HMACs a walk checks.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Macs<'a> {
    /// None (opening checks hashes and the chain; reads check HMACs).
    Unchecked,
    /// Every frame's (`verify`).
    Every(&'a HmacKey),
    /// The last frame's, where a crash may have torn it: a write cut inside
    /// the trailer after the hash landed leaves a frame whose hash checks
    /// out and whose HMAC does not. (Any frame whose HMAC fails is checked
    /// for a valid frame after it, which makes it not the last.)
    Last(&'a HmacKey),
}

/// Why a frame whose hash checked out was refused by its HMAC.
pub(crate) const HMAC_MISMATCH: &str =
    "HMAC mismatch: the frame was altered (or written with another key)";

/// The expectations one frame sets for the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Chain {
    pub(crate) next_seq: u64,
    pub(crate) prev_hash: Hash,
}

impl Chain {
    /// Checks that `frame` follows: its first seq, its previous-hash link and,
    /// given a key, its HMAC. On success the chain moves past it.
    pub(crate) fn follow(
        &mut self,
        frame: &ParsedFrame<'_>,
        key: Option<&HmacKey>,
    ) -> Result<(), String> {
        if frame.header.first_seq != self.next_seq {
            return Err(format!(
                "frame starts at seq {}, expected {} (a gap or a repeat)",
                frame.header.first_seq, self.next_seq
            ));
        }
        if frame.header.prev_hash != self.prev_hash {
            return Err(
                "hash chain broken: the frame's previous-hash link does not match".to_owned(),
            );
        }
        if let Some(key) = key
            && !frame.mac_matches(key)
        {
            return Err(HMAC_MISMATCH.to_owned());
        }
        self.next_seq = frame.header.last_seq() + 1;
        self.prev_hash = frame.hash;
        Ok(())
    }
}

/// Where and why a walk over a segment stopped early.
#[derive(Debug, Clone)]
pub(crate) struct ScanStop {
    pub(crate) offset: u64,
    /// The first seq not covered by a good frame.
    pub(crate) seq: u64,
    pub(crate) reason: String,
    /// The bytes are not a whole frame with a valid hash and HMAC: what a
    /// crash in the middle of a write leaves (a torn tail, if nothing valid
    /// follows). A whole frame failing the chain is never torn.
    pub(crate) torn_candidate: bool,
}

/// The result of walking a whole segment.
#[derive(Debug)]
pub(crate) struct SegmentScan {
    /// Sparse index: (first seq of a frame, its offset).
    pub(crate) index: Vec<(u64, u64)>,
    /// Offset just past the last good frame.
    pub(crate) end: u64,
    /// The chain after the last good frame.
    pub(crate) chain: Chain,
    pub(crate) n_frames: u64,
    /// Commit time of the last good frame (0 when none).
    pub(crate) last_ts_ms: u64,
    pub(crate) stop: Option<ScanStop>,
}

/// Walks every frame of a segment from `start` to `len`, following `chain`
/// and calling `visit` on each good frame. I/O errors end the walk with `Err`;
/// a bad frame ends it with `stop` set.
pub(crate) fn scan_segment(
    file: &Arc<dyn StorageFile>,
    start: u64,
    len: u64,
    mut chain: Chain,
    macs: Macs<'_>,
    mut visit: impl FnMut(&ParsedFrame<'_>) -> Result<(), String>,
) -> io::Result<SegmentScan> {
    let mut cursor = FrameCursor::new(Arc::clone(file), start, len, SEQUENTIAL_READ_BYTES);
    let mut index: Vec<(u64, u64)> = Vec::new();
    let mut n_frames = 0;
    let mut last_ts_ms = 0;
    let mut stop = None;
    loop {
        let offset = cursor.offset();
        match cursor.next_frame() {
            Ok(None) => break,
            Ok(Some((_, frame))) => {
                let mut next = chain;
                // A whole frame that does not follow is never torn. One
                // whose HMAC fails may be: a write cut inside the trailer
                // after the hash landed leaves exactly that.
                let mac_refused = match macs {
                    Macs::Unchecked => false,
                    Macs::Every(key) => !frame.mac_matches(key),
                    // Not the last frame: reads refuse it.
                    Macs::Last(key) => {
                        !frame.mac_matches(key) && valid_frame_after(file, offset, len)?.is_none()
                    }
                };
                let checked = next
                    .follow(&frame, None)
                    .map_err(|reason| (chain.next_seq, reason, false))
                    .and_then(|()| {
                        if mac_refused {
                            Err((chain.next_seq, HMAC_MISMATCH.to_owned(), true))
                        } else {
                            Ok(())
                        }
                    })
                    .and_then(|()| {
                        visit(&frame).map_err(|reason| (frame.header.first_seq, reason, false))
                    });
                if let Err((seq, reason, torn_candidate)) = checked {
                    stop = Some(ScanStop {
                        offset,
                        seq,
                        reason,
                        torn_candidate,
                    });
                    break;
                }
                chain = next;
                let indexed = index.last().map(|&(_, at)| at);
                if indexed.is_none_or(|at| offset - at >= INDEX_STRIDE_BYTES) {
                    index.push((frame.header.first_seq, offset));
                }
                n_frames += 1;
                last_ts_ms = frame.header.ts_ms;
            }
            Err(CursorError::Io(e)) => return Err(e),
            Err(CursorError::Bad { problem, .. }) => {
                stop = Some(ScanStop {
                    offset,
                    seq: chain.next_seq,
                    reason: problem.to_string(),
                    torn_candidate: true,
                });
                break;
            }
        }
    }
    let end = stop.as_ref().map_or(len, |s| s.offset);
    Ok(SegmentScan {
        index,
        end,
        chain,
        n_frames,
        last_ts_ms,
        stop,
    })
}

/// Whether `[from, len)` holds only zeros: space the writer reserved ahead
/// of its frames (or a file that grew while its data never landed). Either
/// way it holds no frame: the log ends at `from`, and nothing is torn.
pub(crate) fn tail_is_zero(file: &Arc<dyn StorageFile>, from: u64, len: u64) -> io::Result<bool> {
    let mut at = from;
    let mut chunk = vec![0u8; SEQUENTIAL_READ_BYTES];
    while at < len {
        let n = usize::try_from(len - at)
            .unwrap_or(usize::MAX)
            .min(chunk.len());
        let buf = chunk.get_mut(..n).unwrap_or_default();
        file.read_exact_at(buf, at)?;
        if buf.iter().any(|&b| b != 0) {
            return Ok(false);
        }
        at += n as u64;
    }
    Ok(true)
}

/// Whether any frame with a valid hash starts after `from` in `[from, len)`.
/// A bad frame followed by a good one is corruption, not a torn tail.
pub(crate) fn valid_frame_after(
    file: &Arc<dyn StorageFile>,
    from: u64,
    len: u64,
) -> io::Result<Option<u64>> {
    let start = from + 1;
    if start >= len {
        return Ok(None);
    }
    let n = usize::try_from(len - start).map_err(|_| io::Error::other("segment too large"))?;
    let mut bytes = vec![0u8; n];
    file.read_exact_at(&mut bytes, start)?;
    let mut at = 0;
    while let Some(found) = bytes.get(at..).and_then(|rest| {
        rest.windows(FRAME_MAGIC.len())
            .position(|w| w == FRAME_MAGIC)
    }) {
        let candidate = at + found;
        if let Some(rest) = bytes.get(candidate..)
            && parse_frame(rest).is_ok()
        {
            return Ok(Some(start + candidate as u64));
        }
        at = candidate + 1;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segment_names_sort_and_parse() {
        assert_eq!(segment_name(1), "00000000000000000001.seg");
        assert_eq!(parse_segment_name(&segment_name(12345)), Some(12345));
        assert_eq!(parse_segment_name("1.seg"), None);
        assert_eq!(parse_segment_name("0000000000000000000x.seg"), None);
        assert_eq!(parse_segment_name("00000000000000000001.seg.bak"), None);
        assert!(segment_name(9) < segment_name(10));
    }
}
