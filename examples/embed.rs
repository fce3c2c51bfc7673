//! An agent harness embedding engram as its storage core.
//!
//! The harness records every turn of a conversation in the session log,
//! saves what matters as memories (plain notes, or references to the turns
//! that said it), and at the start of the next session recalls what is
//! relevant, hands the model the injection-safe context block, and expands a
//! memory back to the exact words when the model asks where it came from.
//!
//! Run it: `cargo run --example embed [STORE_DIR]` (a temporary folder when
//! none is given).

use std::path::PathBuf;

use engram::engine::Engram;
use engram::log::{MemoryRef, Role};
use engram::store::{Store, StoreOptions};
use engram::{Content, MemoryMeta, RecallQuery, Remember, Subject, Turn, context_block};

fn main() -> anyhow::Result<()> {
    let scratch = tempfile::tempdir()?;
    let dir: PathBuf = std::env::args_os()
        .nth(1)
        .map_or_else(|| scratch.path().join("store"), PathBuf::from);

    // Session 1: the conversation is recorded as it happens, redacted and
    // gated like every write.
    let engram = Engram::open(Store::at(&dir), &StoreOptions::default())?;
    let said = engram.record_turns(
        "monday",
        &[
            Turn::new(
                Role::User,
                "Please always run the data analysis in Python, not Node.js.",
            ),
            Turn::new(
                Role::Assistant,
                "Understood: Python for data analysis from now on.",
            ),
            Turn::new(
                Role::User,
                "用户偏好使用 Python 而非 Node.js 处理数据分析。",
            ),
        ],
        &Subject::user(),
    )?;
    // The harness decides the three turns are worth remembering: a reference, so
    // the memory can always be expanded to the exact words.
    let preference = engram
        .remember(&Remember {
            content: Content::Reference(MemoryRef {
                session: "monday".to_owned(),
                first_seq: said.first_seq,
                last_seq: said.last_seq,
            }),
            meta: MemoryMeta {
                room: Some("preferences".to_owned()),
                tags: vec!["tooling".to_owned()],
                summary: Some("Use Python for data analysis".to_owned()),
                ..MemoryMeta::default()
            },
            subject: Subject::user(),
        })?
        .memory()?;
    // And a plain note, with a secret the harness did not notice: it is
    // redacted before it reaches the disk.
    engram.remember(&Remember::text(
        "The CI token is ghp_0123456789abcdefghijklmnopqrstuvwxyzAB, rotate it monthly.",
    ))?;
    engram.close()?;

    // Session 2, after a restart: recall what is relevant to the new task.
    let engram = Engram::open(Store::at(&dir), &StoreOptions::default())?;
    let hits = engram.recall(&RecallQuery::new("which language for data analysis"))?;
    assert_eq!(hits.first().map(|h| h.id), Some(preference));
    println!("{}", context_block(&hits));

    // Chinese works too (character bigrams).
    let hits = engram.recall(&RecallQuery::new("数据分析偏好"))?;
    assert_eq!(hits.first().map(|h| h.id), Some(preference));
    println!(
        "数据分析偏好 -> memory {preference} at {}",
        engram.coordinate(preference)
    );

    // The model asks where the preference came from: the original words,
    // proven unaltered by the content hash and HMAC.
    let expansion = engram.expand_as(preference, &Subject::user(), false)?;
    for t in &expansion.turns {
        println!("seq {} [{:?}] {}", t.seq, t.role, t.content);
    }
    assert!(expansion.verified);

    // The secret never reached the log.
    let token_hits = engram.recall(&RecallQuery::new("CI token rotate"))?;
    let note = token_hits
        .first()
        .map(|h| h.text.as_str())
        .unwrap_or_default();
    assert!(note.contains("[REDACTED:"), "{note}");
    println!("note as stored: {note}");

    // The whole log verifies end to end.
    let report = engram.log().verify()?;
    assert!(report.is_ok());
    println!("log verified: {} events", report.last_seq);
    engram.close()?;
    Ok(())
}
