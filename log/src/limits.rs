//! Named limits. Every unbounded thing the log accepts has one, so bad input
//! is refused with a clear error instead of exhausting memory or disk.

/// Largest encoded event (one length-prefixed entry in a frame payload).
pub const EVENT_BYTES_MAX: usize = 1024 * 1024;

/// Most events one caller may append in one batch. A batch is atomic: it
/// lands in one frame, so it is either wholly durable or wholly absent.
pub const BATCH_EVENTS_MAX: usize = 65_536;

/// Largest encoded batch payload (all its events with their length prefixes).
pub const BATCH_BYTES_MAX: usize = 16 * 1024 * 1024;

/// The writer stops merging queued batches into one commit group once the
/// group's payload reaches this size; the rest go into the next frame.
pub const FRAME_PAYLOAD_BYTES_TARGET: usize = 4 * 1024 * 1024;

/// Largest frame payload the reader accepts. A header claiming more is
/// damaged, not merely large.
pub const FRAME_PAYLOAD_BYTES_MAX: usize = BATCH_BYTES_MAX + FRAME_PAYLOAD_BYTES_TARGET;

/// Default size at which a segment is sealed and a new one started.
pub const SEGMENT_BYTES_DEFAULT: u64 = 64 * 1024 * 1024;

/// Smallest configurable segment size (tests use tiny segments).
pub const SEGMENT_BYTES_MIN: u64 = 1024;

/// Largest configurable segment size.
pub const SEGMENT_BYTES_MAX: u64 = 1024 * 1024 * 1024;

/// The writer reserves segment space this far ahead of the last frame
/// (zero-filled, see `StorageFile::allocate`), so a durable append is one
/// data write plus fdatasync, without a file-size change to commit.
pub const SEGMENT_PREALLOC_BYTES: u64 = 4 * 1024 * 1024;

/// The sparse index records a frame's offset when it starts at least this
/// many bytes after the previously indexed frame, bounding one random read.
pub const INDEX_STRIDE_BYTES: u64 = 4096;

/// Most queued append requests before callers block (back pressure).
pub const QUEUE_REQUESTS_MAX: usize = 4096;
