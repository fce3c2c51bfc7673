//! `engram palace [ROOM]` and `engram renovation`: the room directory,
//! a room's tour, and the memories too alike to others to stand alone.

use std::process::ExitCode;

use engram::api::ErrorCode;
use engram::client::{ClientError, encode};
use serde_json::Value;

use super::Context;
use super::door::Door;

#[derive(Debug, clap::Args)]
pub struct PalaceArgs {
    /// Show this room's tour (every slot in order) instead of the directory.
    room: Option<String>,
    /// Print one JSON object: {"rooms": [{room, corridor, fill, capacity,
    /// topic, tour}]}, or the room's object with ROOM.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RenovationArgs {
    /// Print one JSON object: {"memories": [{id, coordinate, uniqueness, label}]}.
    #[arg(long)]
    json: bool,
}

/// A text field of an answer ("" when missing), made safe for a
/// terminal (control characters shown escaped).
fn text<'a>(value: &'a Value, field: &str) -> std::borrow::Cow<'a, str> {
    engram_text::display::neutralize_line(value[field].as_str().unwrap_or_default())
}

fn print_room(entry: &Value, tour: bool) {
    println!(
        "{} (corridor {}, {}/{} slots): {}",
        text(entry, "room"),
        text(entry, "corridor"),
        entry["fill"],
        entry["capacity"],
        text(entry, "topic")
    );
    if tour {
        for stop in entry["tour"].as_array().into_iter().flatten() {
            println!(
                "  #{} memory {} [{}] {}",
                stop["slot"],
                text(stop, "id"),
                text(stop, "status"),
                text(stop, "label")
            );
        }
    }
}

pub fn palace(ctx: &Context, args: &PalaceArgs) -> anyhow::Result<ExitCode> {
    ctx.require_log()?;
    let door = Door::open(ctx, &[&ctx.store])?;
    let answer = match &args.room {
        Some(name) => door.get(&format!("/api/palace/{}", encode(name))),
        None => door.get("/api/palace"),
    };
    door.finish()?;
    let answer = match answer {
        Err(ClientError::Api(e)) if e.code == ErrorCode::NotFound => anyhow::bail!(
            "no room {}: `engram palace` lists the rooms",
            engram_text::display::neutralize_line(args.room.as_deref().unwrap_or_default())
        ),
        other => other?,
    };
    if args.json {
        println!("{answer}");
        return Ok(ExitCode::SUCCESS);
    }
    match &args.room {
        Some(_) => print_room(&answer, true),
        None => {
            let rooms = answer["rooms"].as_array().cloned().unwrap_or_default();
            if rooms.is_empty() {
                println!("the palace is empty");
            }
            for entry in &rooms {
                print_room(entry, false);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn renovation_list(ctx: &Context, args: &RenovationArgs) -> anyhow::Result<ExitCode> {
    ctx.require_log()?;
    let door = Door::open(ctx, &[&ctx.store])?;
    let answer = door.get("/api/renovation");
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
    } else {
        let list = answer["memories"].as_array().cloned().unwrap_or_default();
        if list.is_empty() {
            println!("nothing to renovate");
        }
        for r in &list {
            println!(
                "memory {} at {} uniqueness {:.2}: {}",
                text(r, "id"),
                text(r, "coordinate"),
                r["uniqueness"].as_f64().unwrap_or_default(),
                text(r, "label")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
