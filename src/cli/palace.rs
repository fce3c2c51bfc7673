//! `engram palace [ROOM]`, `engram palace corridor` and `engram
//! renovation`: the room directory by corridor, a room's tour, putting a
//! room or corridor on a corridor, and the memories too alike to others to
//! stand alone.

use std::process::ExitCode;

use engram::api::{CorridorRequest, ErrorCode};
use engram::client::{ClientError, encode};
use serde_json::Value;

use super::Context;
use super::door::Door;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PalaceArgs {
    #[command(subcommand)]
    command: Option<PalaceCommand>,
    /// Show this room's tour (every slot in order) instead of the directory.
    room: Option<String>,
    /// Print one JSON object: {"rooms": [{room, corridor, fill, capacity,
    /// topic, tour}], "corridors": [{corridor, inside, corridors, rooms,
    /// placed_by}]}, or the room's object with ROOM.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, clap::Subcommand)]
#[command(defer = true)]
enum PalaceCommand {
    /// Put a room on a corridor (`engram palace corridor deploy --into
    /// engineering`): the room and every room of its topic (`deploy-2`
    /// moves with `deploy`), including successors opened later. NAME may
    /// also be a corridor, to put it inside another; a corridor cannot go
    /// inside itself or a corridor inside it (exit 2, nothing written).
    /// Saves put every new room on a corridor by themselves; this corrects
    /// one, and what the user placed a model cannot move.
    Corridor(CorridorArgs),
}

#[derive(Debug, clap::Args)]
struct CorridorArgs {
    #[command(flatten)]
    request: CorridorRequest,
    /// Print one JSON object: placed, name, from, corridor, changed, seq.
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

fn place_corridor(ctx: &Context, args: &CorridorArgs) -> anyhow::Result<ExitCode> {
    ctx.require_log()?;
    let door = Door::open(ctx, &[&ctx.store])?;
    let answer = door.post("/api/corridors", &args.request);
    door.finish()?;
    let answer = answer?;
    if args.json {
        println!("{answer}");
        return Ok(ExitCode::SUCCESS);
    }
    let what = text(&answer, "placed");
    let name = text(&answer, "name");
    let corridor = text(&answer, "corridor");
    if answer["changed"].as_bool() == Some(true) {
        println!("{what} {name} is now on corridor {corridor}");
    } else {
        println!("{what} {name} was already on corridor {corridor}: nothing changed");
    }
    Ok(ExitCode::SUCCESS)
}

fn print_corridors(answer: &Value) {
    let corridors = answer["corridors"].as_array().cloned().unwrap_or_default();
    for c in &corridors {
        let inside = c["inside"]
            .as_str()
            .map(|p| format!(" (inside {})", engram_text::display::neutralize_line(p)))
            .unwrap_or_default();
        let list = |field: &str| {
            c[field]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|s| engram_text::display::neutralize_line(s).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut parts = Vec::new();
        let rooms = list("rooms");
        if !rooms.is_empty() {
            parts.push(format!("rooms {rooms}"));
        }
        let nested = list("corridors");
        if !nested.is_empty() {
            parts.push(format!("corridors {nested}"));
        }
        println!(
            "corridor {}{inside}: {}",
            text(c, "corridor"),
            parts.join("; ")
        );
    }
}

pub fn palace(ctx: &Context, args: &PalaceArgs) -> anyhow::Result<ExitCode> {
    if let Some(PalaceCommand::Corridor(corridor)) = &args.command {
        return place_corridor(ctx, corridor);
    }
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
            print_corridors(&answer);
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
