//! `engram hook prompt` and `engram hook session-end` on the payloads a
//! harness sends (Claude Code's UserPromptSubmit and Stop), run as the real
//! binary from a folder other than the session's: the payload's `cwd` picks
//! the project store.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::memory_scopes::World;
use crate::support::json_lines;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/transcripts")
        .join(name)
}

/// `engram hook ARGS` run in `from` with `payload` on stdin.
fn hook(world: &World, from: &Path, args: &[&str], payload: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("hook")
        .args(args)
        .current_dir(from)
        .env("ENGRAM_HOME", &world.home)
        .env_remove("ENGRAM_HMAC_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(payload).unwrap();
    child.wait_with_output().unwrap()
}

/// A UserPromptSubmit payload as Claude Code sends it.
fn prompt_payload(cwd: &Path, prompt: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "0b6f1f3c-9d55-4d4e-a1f3-5a9c2c1e7d10",
        "transcript_path": "/home/dev/.claude/projects/-home-dev-shop/0b6f1f3c.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }))
    .unwrap()
}

/// A Stop payload as Claude Code sends it.
fn stop_payload(cwd: &Path, transcript: &Path) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "session_id": "7f3c2a9e-5b1d-4c8e-a0f2-9d8e7c6b5a41",
        "transcript_path": transcript,
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "Stop",
        "stop_hook_active": false,
    }))
    .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn assert_ok(out: &Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {}\nstderr: {}",
        stdout(out),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_prompt_hook_prints_a_remembered_fact_as_context() {
    let world = World::new();
    let repo = world.repo("shop", "git@example.com:dev/shop.git");
    let elsewhere = world.plain("elsewhere");
    world.run(
        &repo,
        &[
            "remember",
            "Deploys to production happen on Thursdays after standup",
        ],
        0,
    );

    let out = hook(
        &world,
        &elsewhere,
        &["prompt"],
        &prompt_payload(&repo, "when do deploys to production happen?"),
    );
    assert_ok(&out);
    let block = stdout(&out);
    assert!(block.starts_with("<engram_memory_context>"), "{block}");
    assert!(
        block.contains("> Deploys to production happen on Thursdays after standup"),
        "{block}"
    );
    // The block parses as engram's own and names the memory's store.
    assert!(block.contains("project store"), "{block}");

    // Claude Code's JSON form carries the same block.
    let out = hook(
        &world,
        &elsewhere,
        &["prompt", "--json"],
        &prompt_payload(&repo, "when do deploys to production happen?"),
    );
    assert_ok(&out);
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    assert_eq!(
        answer["hookSpecificOutput"]["additionalContext"],
        block.as_str()
    );

    // Nothing matches: nothing is printed, and the prompt goes on.
    let out = hook(
        &world,
        &elsewhere,
        &["prompt"],
        &prompt_payload(&repo, "zebra quantum marmalade"),
    );
    assert_ok(&out);
    assert_eq!(stdout(&out), "");
}

#[test]
fn the_session_end_hook_makes_the_transcript_recallable_once() {
    let world = World::new();
    let repo = world.repo("shop", "git@example.com:dev/shop.git");
    let elsewhere = world.plain("elsewhere");
    let transcript = fixture("claude-code-transcript.jsonl");
    let payload = stop_payload(&repo, &transcript);

    let out = hook(&world, &elsewhere, &["session-end", "--json"], &payload);
    assert_ok(&out);
    let first = &json_lines(&out.stdout)[0];
    assert!(first["new_turns"].as_u64().unwrap() > 0, "{first}");
    assert_eq!(first["session"], "7f3c2a9e-5b1d-4c8e-a0f2-9d8e7c6b5a41");
    let extracted = first["extracted"].as_array().unwrap();
    assert!(!extracted.is_empty(), "{first}");

    // The user's stated preference is recalled in the repository.
    let hits = world.json(
        &repo,
        &["recall", "which package manager: pnpm or npm", "--json"],
    );
    assert!(
        hits["hits"][0]["text"].as_str().unwrap().contains("pnpm"),
        "{hits}"
    );

    // Stop runs again at the next stop, and SessionEnd at the end: the same
    // transcript adds nothing, not even a proposal.
    let log = |world: &World| world.run(&repo, &["log", "--json"], 0).stdout;
    let before = log(&world);
    let out = hook(&world, &elsewhere, &["session-end", "--json"], &payload);
    assert_ok(&out);
    let again = &json_lines(&out.stdout)[0];
    assert_eq!(again["new_turns"], 0, "{again}");
    assert_eq!(again["extracted"], json!([]), "{again}");
    assert_eq!(log(&world), before, "the log is unchanged");
}

#[test]
fn a_bad_payload_prints_nothing_exits_1_and_is_logged() {
    let world = World::new();
    let repo = world.repo("shop", "git@example.com:dev/shop.git");
    world.run(
        &repo,
        &["remember", "The shop's test suite runs with pnpm"],
        0,
    );
    let log_before = world.run(&repo, &["log", "--json"], 0).stdout;
    let missing = repo.join("no-such-transcript.jsonl");
    let cases: [(&[&str], Vec<u8>, &str); 5] = [
        (
            &["prompt"],
            b"this is not json".to_vec(),
            "not a JSON object",
        ),
        (&["prompt"], b"".to_vec(), "no hook payload"),
        (
            &["prompt"],
            serde_json::to_vec(&json!({"cwd": repo, "hook_event_name": "UserPromptSubmit"}))
                .unwrap(),
            "no \"prompt\"",
        ),
        (&["session-end"], b"[1, 2".to_vec(), "not a JSON object"),
        (
            &["session-end"],
            stop_payload(&repo, &missing),
            "does not exist",
        ),
    ];
    for (args, payload, why) in cases {
        let out = hook(&world, &repo, args, &payload);
        assert_eq!(out.status.code(), Some(1), "{args:?} {why}");
        assert_eq!(stdout(&out), "", "{args:?}: nothing reaches the model");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(why), "{args:?}: {stderr}");
        let logged = std::fs::read_to_string(world.home.join("hook.log")).unwrap();
        assert!(logged.lines().last().unwrap().contains(why), "{logged}");
    }
    assert_eq!(
        world.run(&repo, &["log", "--json"], 0).stdout,
        log_before,
        "nothing was written"
    );
}
