//! `engram palace [ROOM]` and `engram renovation`: the room directory,
//! a room's tour, and the memories too alike to others to stand alone.

use std::process::ExitCode;

use engram_commands::decide::RENOVATION_BELOW_PERMILLE;
use engram_queries::palace::{RoomEntry, directory, renovation, room};
use engram_text::display::neutralize_line as line;
use serde_json::json;

use super::Context;
use engram::api::{json, qualified};

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

fn print_room(scope: &str, entry: &RoomEntry, tour: bool) {
    println!(
        "{} (corridor {}, {}/{} slots): {}",
        line(&entry.room),
        line(&entry.corridor),
        entry.fill,
        entry.capacity,
        line(&entry.topic)
    );
    if tour {
        for stop in &entry.tour {
            println!(
                "  #{} memory {} [{}] {}",
                stop.slot,
                qualified(scope, stop.id),
                stop.status,
                line(&stop.label)
            );
        }
    }
}

pub fn palace(ctx: &Context, args: &PalaceArgs) -> anyhow::Result<ExitCode> {
    let engram = ctx.open_existing()?;
    let result = match &args.room {
        Some(name) => room(engram.core(), name).map(|r| vec![r]),
        None => Some(directory(engram.core())),
    };
    engram.close()?;
    let Some(rooms) = result else {
        anyhow::bail!(
            "no room {}: `engram palace` lists the rooms",
            line(args.room.as_deref().unwrap_or_default())
        );
    };
    match (&args.room, args.json) {
        (Some(_), true) => println!(
            "{}",
            rooms
                .first()
                .map(|r| json::room(ctx.scope, r))
                .unwrap_or_default()
        ),
        (None, true) => println!(
            "{}",
            json!({"rooms": rooms.iter().map(|r| json::room(ctx.scope, r)).collect::<Vec<_>>()})
        ),
        (tour, false) => {
            if rooms.is_empty() {
                println!("the palace is empty");
            }
            for entry in &rooms {
                print_room(ctx.scope, entry, tour.is_some());
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn renovation_list(ctx: &Context, args: &RenovationArgs) -> anyhow::Result<ExitCode> {
    let engram = ctx.open_existing()?;
    let list = renovation(engram.core(), RENOVATION_BELOW_PERMILLE);
    engram.close()?;
    if args.json {
        println!("{}", json::renovation(ctx.scope, &list));
    } else {
        if list.is_empty() {
            println!("nothing to renovate");
        }
        for r in &list {
            println!(
                "memory {} at {} uniqueness {:.2}: {}",
                qualified(ctx.scope, r.id),
                line(&r.coordinate),
                f64::from(r.uniqueness_permille) / 1000.0,
                line(&r.label)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
