//! Links the `engram` binary as a position-dependent executable on Linux
//! with glibc (`-no-pie`).
//!
//! A command line call is a whole process, and with the owner answering
//! in well under a millisecond the process start is most of what it costs.
//! A position-independent executable of this size carries about 46,000
//! relative relocations: the dynamic loader applies each at every start,
//! writing (and so copying) every page of `.data.rel.ro` and the GOT,
//! about 230 page faults before `main`. Linked at a fixed address, the
//! linker resolves them once and those pages are read from the page cache
//! as they are used (benches/runs/2026-12-01/owner-floor.txt has the
//! figures). The price is that the executable's own image is not placed
//! at a random address; its libraries, heap, stacks and mappings still
//! are. The library crate, the tests and the benchmarks are not affected.
//!
//! A build with `crt-static` in `RUSTFLAGS` links a static
//! position-independent executable unless the relocation model is
//! `static` too; `-no-pie` would break that one, so it is left out. The
//! release script links statically with both flags (scripts/release).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let features = std::env::var("CARGO_CFG_TARGET_FEATURE").unwrap_or_default();
    let static_pie = features.split(',').any(|feature| feature == "crt-static");
    if os == "linux" && env == "gnu" && matches!(arch.as_str(), "x86_64" | "aarch64") && !static_pie
    {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
