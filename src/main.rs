//! The `engram` command-line tool.
//!
//! Exit statuses: 0 success; 1 the check failed (`verify` found corruption or
//! tampering); 2 any other error. Errors go to stderr as `engram: <message>`;
//! a closed stdout (`engram log | head`) ends quietly with 0.

mod cli;

use std::process::ExitCode;

use clap::Parser as _;

/// mimalloc, so that a large batch save (`remember --items`, a batch over
/// MCP, HTTP or the owner's socket) prepares its items on one core while
/// it decides them on another: glibc's malloc made that overlap slower
/// (its arenas contend when the deciding thread frees what the preparing
/// one allocated), mimalloc makes it faster. It costs about 0.2 ms of CPU
/// at start-up, which every command line call pays.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    quiet_on_closed_stdout();
    engram::set_prepare_while_planning(true);
    let args = cli::Args::parse();
    match cli::run(args) {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            // Messages can quote stored text (an ambiguous id lists a few
            // words of each memory): shown neutralized, like all human output.
            eprintln!(
                "engram: {}",
                engram_text::display::neutralize(&format!("{err:#}"))
            );
            ExitCode::from(cli::EXIT_ERROR)
        }
    }
}

/// `println!` panics when stdout is a closed pipe (`engram stats --json |
/// head -c 300`): that panic ends the process quietly with 0, like a
/// broken pipe met as an error. Every other panic reports as usual.
fn quiet_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        report(info);
    }));
}

/// Whether the error is stdout closed under us. A broken pipe to the
/// store's owner is not: that failure is reported.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    if err
        .chain()
        .any(|cause| cause.is::<engram::client::ClientError>())
    {
        return false;
    }
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
