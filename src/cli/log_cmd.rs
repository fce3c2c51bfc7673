//! `engram log`: print events in seq order, for people or (with --json) tools.

use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use engram::api::json;
use engram::log::{Event, LoggedEvent};
use engram_text::display::neutralize_line;

use super::{Context, format_ts};

#[derive(Debug, clap::Args)]
pub struct LogArgs {
    /// First seq to print (default 1).
    #[arg(long, value_name = "N")]
    from: Option<u64>,
    /// Last seq to print (default: the end of the log).
    #[arg(long, value_name = "M")]
    to: Option<u64>,
    /// One JSON object per line: seq, ts (RFC 3339), ts_ms, kind and the event's fields.
    #[arg(long)]
    json: bool,
}

pub fn run(ctx: &Context, args: &LogArgs) -> anyhow::Result<ExitCode> {
    ctx.catch_up_replica()?;
    ctx.settle_owner();
    let reader = ctx.open_reader()?;
    let last = reader.as_ref().map_or(0, engram::log::LogReader::last_seq);
    if let Some(warning) = reader.as_ref().and_then(|r| r.recovery().warning()) {
        eprintln!("engram: warning: {warning}; showing the log up to seq {last}");
    }
    let from = args.from.unwrap_or(1);
    let to = args.to.unwrap_or(last);
    if from == 0 {
        bail!("--from 0: seqs start at 1");
    }
    if args.from.is_none() && args.to.is_none() && last == 0 {
        return Ok(ExitCode::SUCCESS);
    }
    for seq in [from, to] {
        if seq > last {
            bail!("seq {seq} is past the end of the log (last seq is {last})");
        }
    }
    if from > to {
        bail!("--from {from} is after --to {to}");
    }
    let Some(reader) = reader else {
        return Ok(ExitCode::SUCCESS);
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for logged in reader.replay(from) {
        let logged = logged?;
        if logged.seq > to {
            break;
        }
        if args.json {
            let line = json::logged_event(&logged)
                .with_context(|| format!("rendering seq {} as JSON", logged.seq))?;
            serde_json::to_writer(&mut out, &line)?;
            out.write_all(b"\n")?;
        } else {
            writeln!(out, "{}", human_line(&logged)?)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn human_line(logged: &LoggedEvent) -> anyhow::Result<String> {
    let detail = match &logged.event {
        Event::Session(s) => {
            let role = serde_json::to_value(s.role)?;
            let role = role.as_str().unwrap_or("?").to_owned();
            format!(
                "{}#{} {role}: {}",
                s.session,
                s.turn,
                s.content.escape_debug()
            )
        }
        other => other
            .serialize_fields(serde_json::value::Serializer)
            .map(|v| v.to_string())?,
    };
    // An erased event shows its skeleton: say so, or its empty words read
    // as words that were never there.
    let erased = if logged.erased {
        " (words erased by a purge)"
    } else {
        ""
    };
    Ok(format!(
        "{:>8}  {}  {:<21} {}{erased}",
        logged.seq,
        format_ts(logged.ts_ms),
        logged.event.kind(),
        neutralize_line(&detail)
    ))
}
