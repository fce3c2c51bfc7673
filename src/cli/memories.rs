//! `engram list` (memories newest first, filtered, a page at a time, across
//! the stores recall spans) and `engram update` (new words for a memory,
//! recorded as a supersession). Both reach the owner through the door, as
//! every memory command does; `--json` prints the HTTP answer.

use std::process::ExitCode;

use anyhow::Context as _;
use engram::api::{
    IdArg, ListRequest, StatusName, TierName, UpdateRequest, parse_time, read_text_input,
};
use engram::client::{memory_target, query_target};
use engram::engine::now_ms;
use engram_text::display::neutralize_line;
use serde_json::Value;

use super::Context;

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Only memories filed in this room (or a room of its corridor).
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Only memories carrying this tag.
    #[arg(long, value_name = "TAG")]
    tag: Option<String>,
    /// Only memories in this tier.
    #[arg(long, value_enum, value_name = "TIER")]
    tier: Option<TierName>,
    /// Only memories of this status: live, superseded (overruled by a
    /// verdict or an update), archived, forgotten. Default: all but
    /// forgotten.
    #[arg(long, value_enum, value_name = "STATUS")]
    status: Option<StatusName>,
    /// Only memories created at or after this time: RFC 3339
    /// (2026-12-01T09:00:00Z) or an offset from now (-7d, -12h).
    #[arg(long, value_name = "TIME", allow_hyphen_values = true)]
    since: Option<String>,
    /// Most memories on a page (1-500).
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: u32,
    /// Start where the page before ended (its `next`).
    #[arg(long, value_name = "CURSOR")]
    cursor: Option<String>,
    /// Print one JSON object: {"memories": [{"id", "scope", "status",
    /// "tier", "coordinate", "room", "tags", "summary", "label", "text",
    /// "verified", "source", "trust", "created"}], "next"}.
    #[arg(long)]
    json: bool,
}

pub fn list(ctx: &Context, args: &ListArgs) -> anyhow::Result<ExitCode> {
    if let Some(text) = &args.since {
        parse_time(text, now_ms()).map_err(|e| anyhow::anyhow!("--since {e}"))?;
    }
    let request = ListRequest {
        room: args.room.clone(),
        tag: args.tag.clone(),
        tier: args.tier,
        status: args.status,
        since: args.since.clone(),
        limit: Some(args.limit),
        cursor: args.cursor.clone(),
    };
    request.limit()?;
    // A list creates no store: the stores with a log, primary first.
    let with_log = ctx.recall_stores_with_log();
    let answer = if with_log.is_empty() {
        serde_json::json!({"memories": [], "next": null})
    } else {
        let body = serde_json::to_value(&request).context("encoding the request")?;
        let door = super::door::Door::open(ctx, &with_log)?;
        let answer = door.get(&query_target("/api/memories", &body));
        door.finish()?;
        answer?
    };
    for skipped in answer["skipped"].as_array().into_iter().flatten() {
        eprintln!(
            "engram: warning: not listed: {}",
            skipped.as_str().unwrap_or_default()
        );
    }
    if args.json {
        println!("{answer}");
        return Ok(ExitCode::SUCCESS);
    }
    let memories = answer["memories"].as_array().cloned().unwrap_or_default();
    if memories.is_empty() {
        println!("no memories");
    }
    let text =
        |m: &Value, key: &str| neutralize_line(m[key].as_str().unwrap_or_default()).into_owned();
    for m in &memories {
        println!(
            "{:<6} {:<10} {} {} {}  {}",
            text(m, "id"),
            text(m, "status"),
            text(m, "tier"),
            padded(&text(m, "coordinate"), 16),
            text(m, "created"),
            text(m, "label"),
        );
    }
    if let Some(next) = answer["next"].as_str() {
        println!("more: engram list --cursor {next}");
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, clap::Args)]
pub struct UpdateArgs {
    /// The memory's id as recall or list shows it (`p:2`, `u:2`).
    #[arg(allow_negative_numbers = true)]
    id: IdArg,
    /// The new words (`-` reads standard input): a new memory that
    /// supersedes the old one.
    text: String,
    /// Why (kept in the verdict that retires the old memory).
    #[arg(long, value_name = "TEXT")]
    reason: Option<String>,
    /// Who updates: the user (default) or a model (which may not
    /// supersede what the user said).
    #[arg(long, value_enum, default_value = "user")]
    by: engram::api::By,
    /// The caller's session: the new words are recorded there (needed for
    /// a session-only memory).
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// One-line summary of the new words.
    #[arg(long, value_name = "TEXT")]
    summary: Option<String>,
    /// Tags of the new memory, comma separated (default: the old one's).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    tags: Option<Vec<String>>,
    /// Palace room of the new memory (default: the old one's).
    #[arg(long, value_name = "ROOM")]
    room: Option<String>,
    /// Print one JSON object: the new memory's id, coordinate, outcome,
    /// related, reason, uniqueness, scope, session, first_seq, last_seq,
    /// with supersedes (the old id) and verdict_seq.
    #[arg(long)]
    json: bool,
}

pub fn update(ctx: &Context, args: &UpdateArgs) -> anyhow::Result<ExitCode> {
    let content = if args.text == "-" {
        let bytes = read_text_input(std::io::stdin().lock(), "standard input")?;
        String::from_utf8(bytes).context("standard input is not UTF-8")?
    } else {
        args.text.clone()
    };
    let request = UpdateRequest {
        content,
        reason: args.reason.clone(),
        by: args.by,
        session: args.session.clone(),
        summary: args.summary.clone(),
        tags: args.tags.clone(),
        room: args.room.clone(),
    };
    let door = super::door::Door::open(ctx, &ctx.memory_stores()?)?;
    let answer = door.post(&memory_target(args.id, "update", &[]), &request);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        let text =
            |key: &str| neutralize_line(answer[key].as_str().unwrap_or_default()).into_owned();
        let store = match text("scope").as_str() {
            "store" => "the store".to_owned(),
            scope => format!("the {scope} store"),
        };
        println!(
            "updated memory {}: memory {} at {} supersedes it (verdict at seq {} of {store})",
            text("supersedes"),
            text("id"),
            text("coordinate"),
            answer["verdict_seq"],
        );
        if answer["outcome"] == "contradiction" {
            println!(
                "the new words contradict memory {} ({}): see `engram verdicts`",
                text("related"),
                text("reason")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `text` padded with spaces to `columns` terminal columns: a CJK room name
/// takes two columns a character, so padding by characters misaligns.
fn padded(text: &str, columns: usize) -> String {
    let width = unicode_width::UnicodeWidthStr::width(text);
    format!("{text}{}", " ".repeat(columns.saturating_sub(width)))
}

#[cfg(test)]
mod tests {
    use super::padded;

    #[test]
    fn a_cjk_room_is_padded_by_display_width() {
        let cjk = padded("中文#1", 16);
        let ascii = padded("ops#1", 16);
        assert_eq!(unicode_width::UnicodeWidthStr::width(cjk.as_str()), 16);
        assert_eq!(unicode_width::UnicodeWidthStr::width(ascii.as_str()), 16);
        assert_eq!(
            padded("a-room-longer-than-sixteen", 16),
            "a-room-longer-than-sixteen"
        );
    }
}
