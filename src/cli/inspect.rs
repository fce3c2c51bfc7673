//! `engram inspect segment PATH`: the frames of one segment file, byte by
//! byte, for auditors and for debugging a damaged log. Read-only.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use engram::log::format::{SEGMENT_HEADER_LEN, SegmentHeader, parse_frame};
use engram::log::{HmacKey, KeySource};
use serde_json::{Value, json};

use super::{Context, EXIT_CHECK_FAILED, format_ts};

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
pub enum InspectCommand {
    /// List a segment file's header and frames (offset, seqs, sizes, commit
    /// time, hash, HMAC check). Exit 1 at the first bad frame.
    Segment(SegmentArgs),
}

#[derive(Debug, clap::Args)]
pub struct SegmentArgs {
    /// The segment file.
    path: PathBuf,
    /// One JSON object per line: the header, then each frame.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, command: &InspectCommand) -> anyhow::Result<ExitCode> {
    ctx.refuse_shared_log("inspect")?;
    match command {
        InspectCommand::Segment(args) => segment(ctx, args),
    }
}

/// The key if one can be had without creating anything; HMACs are reported
/// as unchecked otherwise.
fn key(ctx: &Context) -> Option<HmacKey> {
    match &ctx.key {
        KeySource::StoreFile => ctx.store.key(&ctx.key, false).ok(),
        other => other.load(ctx.store.dir(), false).ok(),
    }
}

fn segment(ctx: &Context, args: &SegmentArgs) -> anyhow::Result<ExitCode> {
    let bytes =
        std::fs::read(&args.path).with_context(|| format!("reading {}", args.path.display()))?;
    let key = key(ctx);
    let emit = |value: Value, human: String| {
        if args.json {
            println!("{value}");
        } else {
            println!("{human}");
        }
    };
    let header = match SegmentHeader::decode(&bytes) {
        Ok(header) => header,
        Err(problem) => {
            emit(
                json!({"type": "segment", "ok": false, "problem": format!("{problem:?}")}),
                format!("bad segment header: {problem:?}"),
            );
            return Ok(ExitCode::from(EXIT_CHECK_FAILED));
        }
    };
    let key_matches = key.as_ref().map(|k| k.key_id() == header.key_id);
    emit(
        json!({
            "type": "segment", "ok": true, "version": header.version, "first_seq": header.first_seq,
            "key_id": hex::encode(header.key_id), "key_matches": key_matches,
            "prev_hash": hex::encode(header.prev_hash), "bytes": bytes.len(),
        }),
        format!(
            "segment v{} first seq {} key id {} ({}) prev hash {}… {} bytes",
            header.version,
            header.first_seq,
            hex::encode(header.key_id),
            match key_matches {
                Some(true) => "matches the key",
                Some(false) => "does NOT match the key",
                None => "no key to check",
            },
            hex::encode(header.prev_hash.get(..8).unwrap_or_default()),
            bytes.len()
        ),
    );
    let mut offset = SEGMENT_HEADER_LEN;
    let mut prev_hash = header.prev_hash;
    let mut bad = false;
    while offset < bytes.len() {
        let rest = bytes.get(offset..).unwrap_or_default();
        let frame = match parse_frame(rest) {
            Ok(frame) => frame,
            Err(_) if rest.iter().all(|&b| b == 0) => {
                emit(
                    json!({"type": "reserved", "offset": offset, "bytes": rest.len()}),
                    format!(
                        "{offset:>10}  {} bytes reserved for the next frames (zeros)",
                        rest.len()
                    ),
                );
                break;
            }
            Err(problem) => {
                let tail = bytes.len() - offset;
                emit(
                    json!({"type": "stop", "offset": offset, "bytes_left": tail, "problem": problem.to_string()}),
                    format!(
                        "{offset:>10}  stop: {problem} ({tail} bytes left; torn if nothing valid follows)"
                    ),
                );
                bad = true;
                break;
            }
        };
        let h = frame.header;
        let linked = h.prev_hash == prev_hash;
        let mac = key.as_ref().map(|k| frame.mac_matches(k));
        emit(
            json!({
                "type": "frame", "offset": offset, "first_seq": h.first_seq, "last_seq": h.last_seq(),
                "n_events": h.n_events, "payload_bytes": h.payload_len, "ts": format_ts(h.ts_ms),
                "hash": hex::encode(frame.hash), "linked": linked, "hmac_ok": mac,
            }),
            format!(
                "{offset:>10}  seqs {:>8}-{:<8} {:>5} events {:>8} B  {}  hash {}…{}{}",
                h.first_seq,
                h.last_seq(),
                h.n_events,
                frame.len(),
                format_ts(h.ts_ms),
                hex::encode(frame.hash.get(..6).unwrap_or_default()),
                if linked { "" } else { "  CHAIN BROKEN" },
                match mac {
                    Some(true) => "  hmac ok",
                    Some(false) => "  HMAC BAD",
                    None => "",
                }
            ),
        );
        bad |= !linked || mac == Some(false);
        prev_hash = frame.hash;
        offset += frame.len();
    }
    Ok(if bad {
        ExitCode::from(EXIT_CHECK_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}
