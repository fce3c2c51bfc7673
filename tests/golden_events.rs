//! The events of the golden fixture logs: one of every variant, with Unicode
//! (CJK) content, written in batches across several tiny segments. Shared by
//! the golden test and `examples/write_golden_fixture.rs`.
//!
//! Never change what this returns for an existing fixture version: the
//! fixture on disk was written from it and must keep replaying to it.

#![allow(dead_code)]

use engram_log::*;

/// Unix milliseconds of the fixture's first frame; each batch adds one second.
pub const GOLDEN_T0_MS: u64 = 1_795_000_000_000;

/// The HMAC key of the fixtures (a test key, not a secret).
pub const GOLDEN_KEY: [u8; 32] = [0x42; 32];

/// The master key of the sealed fixtures (format v2; a test key).
pub const GOLDEN_MASTER_KEY: [u8; 32] = [0x24; 32];

/// The subjects whose data keys the v2 fixture destroys after its last
/// batch (the first turn and the memory sealed over it): they replay
/// erased, as their skeletons.
pub const GOLDEN_V2_PURGED: [u64; 2] = [1, 7];

/// Segment size the fixture was written with, small so it spans segments.
pub const GOLDEN_SEGMENT_BYTES: u64 = 1024;

fn digest(byte: u8) -> Digest {
    Digest([byte; 32])
}

fn session(turn: u32, role: Role, content: &str) -> Event {
    Event::Session(SessionEvent {
        session: "golden-1".to_owned(),
        turn,
        role,
        content: content.to_owned(),
    })
}

/// The batches of the v1 fixture, in append order.
pub fn golden_v1_batches() -> Vec<Vec<Event>> {
    vec![
        vec![
            session(0, Role::User, "I prefer tea over coffee in the morning."),
            session(1, Role::Assistant, "Noted: tea in the morning."),
        ],
        vec![session(
            2,
            Role::User,
            "用户偏好使用 Python 而非 Node.js 处理数据分析。",
        )],
        vec![
            session(3, Role::Tool, "{\"exit\":0}"),
            session(4, Role::System, "You are a helpful agent."),
            session(5, Role::Note, "Deploy on Fridays is forbidden."),
        ],
        vec![Event::Remembered(Remembered {
            reference: MemoryRef {
                session: "golden-1".to_owned(),
                first_seq: 1,
                last_seq: 2,
            },
            content_sha256: digest(1),
            mac: digest(2),
            summary: Some("Prefers tea in the morning".to_owned()),
            tags: vec!["preference".to_owned(), "drink".to_owned()],
            tier: Tier::L3,
            room: Some("preference".to_owned()),
            uniqueness_permille: 875,
            source: Source::User,
            scope: Scope::Store,
            embedding: Some(Embedding {
                model: "bge-small-zh-v1.5".to_owned(),
                scale: 0.0125,
                values: vec![-128, -1, 0, 1, 127],
            }),
        })],
        vec![
            Event::Reinforced(Reinforced {
                memory: 7,
                evidence: Some(MemoryRef {
                    session: "golden-1".to_owned(),
                    first_seq: 3,
                    last_seq: 3,
                }),
                source: Source::Model,
            }),
            Event::ContradictionFlagged(ContradictionFlagged {
                memory: 7,
                other: 3,
                reason: "opposite preference".to_owned(),
            }),
            Event::VerdictRecorded(VerdictRecorded {
                a: 7,
                b: 3,
                verdict: Verdict::KeepA,
                by: Actor::User,
                reason: "the user said so".to_owned(),
            }),
        ],
        vec![
            Event::Distilled(Distilled {
                rule: "Morning drinks: tea.".to_owned(),
                members: vec![7],
                confidence_permille: 640,
                room: None,
            }),
            Event::TierChanged(TierChanged {
                memory: 7,
                from: Tier::L3,
                to: Tier::L4,
                reason: "decay".to_owned(),
            }),
            Event::Archived(Archived {
                memory: 7,
                reason: "not accessed for 90 days".to_owned(),
            }),
            Event::Forgotten(Forgotten {
                memory: 7,
                by: Actor::Model,
                reason: "asked to forget".to_owned(),
            }),
            Event::Graded(Graded {
                memory: 7,
                grade: 4,
            }),
        ],
        vec![Event::Recalled(Recalled {
            query: "数据分析偏好".to_owned(),
            filters: RecallFilters {
                room: Some("preference".to_owned()),
                tier: Some(Tier::L3),
                tags: vec!["drink".to_owned()],
                scope: Some(Scope::Session("golden-1".to_owned())),
                limit: 5,
            },
            hits: vec![RecallHit {
                memory: 7,
                score_micros: 1_234_567,
            }],
            mode: "keyword".to_owned(),
        })],
        vec![
            Event::Expanded(Expanded {
                memory: 7,
                audit: true,
            }),
            Event::EvidenceNoted(EvidenceNoted {
                memory: 7,
                by: Actor::System,
                note: "matches turn 0".to_owned(),
            }),
            Event::EntityLinked(EntityLinked {
                memory: 7,
                entity: "tea".to_owned(),
                category: "drink".to_owned(),
            }),
            Event::GateDenied(GateDenied {
                subject: "model".to_owned(),
                action: "forget".to_owned(),
                object: "memory 7".to_owned(),
                reason: "scope isolation".to_owned(),
            }),
            Event::Discarded(Discarded {
                content_sha256: digest(3),
                reason: "too short".to_owned(),
            }),
            Event::Checkpoint(Checkpoint {
                last_seq: 21,
                chain_hash: digest(4),
                mac: digest(5),
            }),
        ],
    ]
}

/// The batches of the v1.1 fixture: v1's, then the evidence layout that
/// carries the quote and its validity (variant 17), and a memory sealed for
/// real (content hash over the canonical bytes, HMAC under [`GOLDEN_KEY`]),
/// so the fixture also pins the seal: a change to the canonical bytes makes
/// expanding its memory fail.
pub fn golden_v1_1_batches() -> Vec<Vec<Event>> {
    let mut batches = golden_v1_batches();
    let first_seq = batches.iter().map(|b| b.len() as u64).sum::<u64>() + 1;
    let turns = vec![
        Event::Session(SessionEvent {
            session: "golden-2".to_owned(),
            turn: 0,
            role: Role::User,
            content: "部署在周五下午进行。Deploys happen on Friday afternoons.".to_owned(),
        }),
        Event::Session(SessionEvent {
            session: "golden-2".to_owned(),
            turn: 1,
            role: Role::Note,
            content: "token [REDACTED:github_token] rotated".to_owned(),
        }),
    ];
    let reference = MemoryRef {
        session: "golden-2".to_owned(),
        first_seq,
        last_seq: first_seq + 1,
    };
    let content_sha256 = seal::content_sha256(&turns).unwrap_or_default();
    let mac = seal::reference_mac(
        &HmacKey::from_bytes(GOLDEN_KEY),
        &reference,
        &content_sha256,
    );
    let memory = first_seq + 2;
    batches.push(turns);
    batches.push(vec![Event::Remembered(Remembered {
        reference,
        content_sha256,
        mac,
        summary: None,
        tags: vec!["ops".to_owned()],
        tier: Tier::L3,
        room: Some("ops".to_owned()),
        uniqueness_permille: 1000,
        source: Source::User,
        scope: Scope::Store,
        embedding: None,
    })]);
    batches.push(vec![
        Event::EvidenceConfirmed(EvidenceConfirmed {
            memory,
            by: Actor::User,
            quote: "周五下午".to_owned(),
            valid: true,
        }),
        Event::EvidenceConfirmed(EvidenceConfirmed {
            memory,
            by: Actor::Model,
            quote: "Monday".to_owned(),
            valid: false,
        }),
    ]);
    batches
}

/// The batches of the v1.2 fixture: v1.1's, then a time to live (variant 18).
pub fn golden_v1_2_batches() -> Vec<Vec<Event>> {
    let mut batches = golden_v1_1_batches();
    let memory = batches.iter().map(|b| b.len() as u64).sum::<u64>() - 2;
    batches.push(vec![Event::TtlSet(TtlSet {
        memory,
        expires_at_ms: GOLDEN_T0_MS + 30 * 86_400_000,
    })]);
    batches
}

/// The batches of the v1.3 fixture: v1.2's, then a vector added later
/// (variant 19).
pub fn golden_v1_3_batches() -> Vec<Vec<Event>> {
    let mut batches = golden_v1_2_batches();
    let memory = batches.iter().map(|b| b.len() as u64).sum::<u64>() - 3;
    batches.push(vec![Event::Embedded(Embedded {
        memory,
        embedding: Embedding {
            model: "golden-model@00000000".to_owned(),
            scale: 0.5,
            values: vec![1, -2, 3, -127, 127, 0],
        },
    })]);
    batches
}

/// The batches of the v2 fixture, written by a log with a key store (frames
/// of format version 2, words sealed): v1.5's, then a purge of
/// [`GOLDEN_V2_PURGED`] (variant 22), whose keys are then destroyed.
pub fn golden_v2_batches() -> Vec<Vec<Event>> {
    let mut batches = golden_v1_5_batches();
    batches.push(vec![Event::Purged(Purged {
        by: Actor::User,
        reason: "asked to be forgotten".to_owned(),
        memories: vec![7],
        sessions: Vec::new(),
        subjects: GOLDEN_V2_PURGED.to_vec(),
    })]);
    batches
}

/// The batches of the v1.5 fixture: v1.4's, then a room put on a corridor
/// and a corridor nested in another (variant 21).
pub fn golden_v1_5_batches() -> Vec<Vec<Event>> {
    let mut batches = golden_v1_4_batches();
    batches.push(vec![
        Event::CorridorPlaced(CorridorPlaced {
            placed: Placed::Room,
            name: "deploys".to_owned(),
            corridor: "engineering".to_owned(),
            actor: Actor::System,
        }),
        Event::CorridorPlaced(CorridorPlaced {
            placed: Placed::Corridor,
            name: "engineering".to_owned(),
            corridor: "work".to_owned(),
            actor: Actor::User,
        }),
    ]);
    batches
}

/// The batches of the v1.4 fixture: v1.3's, then a uniqueness refreshed by
/// maintenance (variant 20).
pub fn golden_v1_4_batches() -> Vec<Vec<Event>> {
    let mut batches = golden_v1_3_batches();
    let memory = batches.iter().map(|b| b.len() as u64).sum::<u64>() - 4;
    batches.push(vec![Event::UniquenessScored(UniquenessScored {
        memory,
        uniqueness_permille: 250,
    })]);
    batches
}
