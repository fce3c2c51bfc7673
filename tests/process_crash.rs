//! Process crash test: a real writer process is killed with SIGKILL at
//! random moments while appending under `Sync` durability.
//!
//! The story this guards against: an acknowledgement sent before the frame
//! reached the disk (or a recovery that truncates too much) loses events a
//! caller was told were durable; a recovery that truncates too little leaves
//! a torn frame that breaks the chain. After every kill the store must reopen
//! with every acknowledged seq present, seqs contiguous from 1, and `verify`
//! passing. A SIGKILL does not lose the page cache, so this checks the
//! process-crash half; the power-loss half is `log_crash` with the
//! fault-injecting storage.

use std::io::{BufRead as _, BufReader};
use std::process::{Command, Stdio};

use engram::store::{Store, StoreOptions};
use engram_log::KeySource;
use rand::{Rng as _, SeedableRng as _, rngs::StdRng};

use crate::support::seed;

const ROUNDS: usize = 24;

#[test]
fn sigkilled_writer_loses_no_acknowledged_event() {
    let seed = seed(0x5EED_C4A5);
    eprintln!("process crash seed {seed} (ENGRAM_TEST_SEED to replay)");
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = tempfile::tempdir().unwrap();
    let store_dir = dir.path().join("store");
    let mut acked_max = 0u64;
    let mut n_kills_mid_stream = 0;
    for round in 0..ROUNDS {
        let acks_before_kill = match round % 4 {
            0 => 0, // killed while starting up: opening, recovering, creating a segment
            _ => rng.random_range(1..400),
        };
        let batch = rng.random_range(1..=16).to_string();
        let writers = rng.random_range(1..=8).to_string();
        let mut child = Command::new(env!("CARGO_BIN_EXE_engram"))
            .args(["--store"])
            .arg(&store_dir)
            .args([
                "bench",
                "append",
                "--events",
                "100000000",
                "--durability",
                "sync",
            ])
            .args(["--batch", &batch, "--writers", &writers])
            .args(["--segment-bytes", "16384", "--print-acks"])
            .env_remove("ENGRAM_HMAC_KEY")
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut lines = BufReader::new(stdout).lines();
        let mut acked = Vec::new();
        while acked.len() < acks_before_kill {
            let Some(line) = lines.next() else { break };
            let line = line.unwrap();
            let (first, last) = line.split_once(' ').unwrap();
            acked.push((first.parse::<u64>().unwrap(), last.parse::<u64>().unwrap()));
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        // Acks already printed before the kill landed are acknowledged too.
        for line in lines.map_while(Result::ok) {
            if let Some((first, last)) = line.split_once(' ')
                && let (Ok(first), Ok(last)) = (first.parse::<u64>(), last.parse::<u64>())
            {
                acked.push((first, last));
            }
        }
        if acks_before_kill > 0 {
            assert!(
                acked.len() >= acks_before_kill,
                "round {round}: the writer ended before it was killed"
            );
            n_kills_mid_stream += 1;
        }
        for &(first, last) in &acked {
            assert!(first <= last && first > 0);
            acked_max = acked_max.max(last);
        }

        // Read-only verify first: the torn tail (if any) is only a warning.
        let status = Command::new(env!("CARGO_BIN_EXE_engram"))
            .arg("--store")
            .arg(&store_dir)
            .arg("verify")
            .env_remove("ENGRAM_HMAC_KEY")
            .output()
            .unwrap();
        assert!(
            status.status.success(),
            "round {round}: verify failed: {}{}",
            String::from_utf8_lossy(&status.stdout),
            String::from_utf8_lossy(&status.stderr)
        );

        // Reopen for writing: recovery truncates a torn tail.
        let store = Store::at(&store_dir);
        if !store.has_log() {
            assert_eq!(
                acked_max, 0,
                "round {round}: acknowledged events but no log"
            );
            continue;
        }
        let options = StoreOptions {
            key: KeySource::StoreFile,
            ..StoreOptions::default()
        };
        let log = store.open_log(&options).unwrap();
        let last = log.last_seq();
        assert!(
            last >= acked_max,
            "round {round}: acknowledged up to seq {acked_max} but the log ends at {last}"
        );
        let mut expected = 1;
        for event in log.replay(1) {
            let event = event.unwrap();
            assert_eq!(event.seq, expected, "round {round}: seqs not contiguous");
            expected += 1;
        }
        assert_eq!(expected - 1, last);
        let report = log.verify().unwrap();
        assert!(report.is_ok(), "round {round}: {report:?}");
        log.close().unwrap();
    }
    assert!(n_kills_mid_stream >= 18, "too few kills landed mid-stream");
    assert!(acked_max > 0);
}
