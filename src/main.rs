//! The `engram` command-line tool.
//!
//! Exit statuses: 0 success; 1 the check failed (`verify` found corruption or
//! tampering); 2 any other error. Errors go to stderr as `engram: <message>`;
//! a closed stdout (`engram log | head`) ends quietly with 0.

mod cli;

use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
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

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
