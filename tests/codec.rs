//! The event codec (`engram_log::codec`, bincode 2.0.1 with one fixed
//! configuration): every `Event` variant survives encode then decode unchanged
//! and re-encodes to the same bytes; damaged or foreign bytes (cut short,
//! mutated, random, with a huge length, with trailing bytes) are refused with
//! an error, never a panic or an unbounded allocation; the largest events the
//! log accepts (`EVENT_BYTES_MAX`) still decode; and a `Digest` is hex in JSON
//! but raw bytes in the binary codec.
//!
//! Property tests run through a `TestRunner` seeded from `support::seed`, so
//! a failure prints its seed and its shrunk input and replays.

use std::fmt::Debug;

use engram_log::codec::{decode, encode};
use engram_log::limits::EVENT_BYTES_MAX;
use engram_log::{
    Actor, Archived, Checkpoint, ContradictionFlagged, CorridorPlaced, Digest, Discarded,
    Distilled, Embedded, Embedding, EntityLinked, Event, EvidenceConfirmed, EvidenceNoted,
    Expanded, Forgotten, GateDenied, Graded, MemoryRef, Placed, Purged, RecallFilters, RecallHit,
    Recalled, Reinforced, Remembered, Role, Scope, SessionEvent, Source, Tier, TierChanged, TtlSet,
    UniquenessScored, Verdict, VerdictRecorded,
};
use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use proptest::strategy::Union;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseResult, TestRng, TestRunner};

use crate::support;

/// Runs `test` on `cases` values of `strategy` with a seeded, reproducible
/// runner; panics with the shrunk failing value.
pub(crate) fn check<S: Strategy>(
    name: &str,
    cases: u32,
    strategy: &S,
    test: impl Fn(S::Value) -> TestCaseResult,
) where
    S::Value: Debug,
{
    let seed = support::seed(0xC0DE_C0DE);
    eprintln!("{name}: seed {seed} (replay with ENGRAM_TEST_SEED={seed})");
    let mut seed_bytes = [0u8; 32];
    seed_bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed_bytes),
    );
    if let Err(failure) = runner.run(strategy, test) {
        panic!("{name} (seed {seed}): {failure}");
    }
}

// ---------------------------------------------------------------------------
// Strategies, one per struct of the event schema.

/// Strings of every kind: arbitrary Unicode, plain ASCII, CJK and kana,
/// emoji, long enough to need a multi-byte length, and empty.
fn text() -> BoxedStrategy<String> {
    prop_oneof![
        any::<String>(),
        "[a-zA-Z0-9 .,!?]{0,40}",
        "[\u{4e00}-\u{9fff}\u{3040}-\u{30ff}，。]{0,24}",
        "[😀-🙏🦀éñß ]{0,12}",
        "[a-z]{250,700}",
        Just(String::new()),
    ]
    .boxed()
}

/// u64 values of every varint width (1, 3, 5 and 9 bytes) and the extremes.
fn int_u64() -> BoxedStrategy<u64> {
    prop_oneof![
        Just(0u64),
        1..251u64,
        251..=u64::from(u16::MAX),
        u64::from(u16::MAX) + 1..=u64::from(u32::MAX),
        any::<u64>(),
        Just(u64::MAX),
    ]
    .boxed()
}

fn int_u32() -> BoxedStrategy<u32> {
    prop_oneof![Just(0u32), 1..251u32, any::<u32>(), Just(u32::MAX)].boxed()
}

fn int_u16() -> BoxedStrategy<u16> {
    prop_oneof![Just(0u16), 0..=1000u16, any::<u16>()].boxed()
}

fn digest() -> impl Strategy<Value = Digest> {
    any::<[u8; 32]>().prop_map(Digest)
}

fn role() -> impl Strategy<Value = Role> {
    prop_oneof![
        Just(Role::User),
        Just(Role::Assistant),
        Just(Role::Tool),
        Just(Role::System),
        Just(Role::Note),
    ]
}

fn tier() -> impl Strategy<Value = Tier> {
    prop_oneof![
        Just(Tier::L1),
        Just(Tier::L2),
        Just(Tier::L3),
        Just(Tier::L4)
    ]
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        Just(Source::User),
        Just(Source::Model),
        Just(Source::Ingest),
        Just(Source::Document),
        Just(Source::Import),
    ]
}

fn actor() -> impl Strategy<Value = Actor> {
    prop_oneof![Just(Actor::User), Just(Actor::Model), Just(Actor::System)]
}

fn verdict() -> impl Strategy<Value = Verdict> {
    prop_oneof![
        Just(Verdict::KeepA),
        Just(Verdict::KeepB),
        Just(Verdict::KeepBoth),
        Just(Verdict::Shelve),
    ]
}

fn scope() -> impl Strategy<Value = Scope> {
    prop_oneof![Just(Scope::Store), text().prop_map(Scope::Session)]
}

fn memory_ref() -> impl Strategy<Value = MemoryRef> {
    (text(), int_u64(), int_u64()).prop_map(|(session, first_seq, last_seq)| MemoryRef {
        session,
        first_seq,
        last_seq,
    })
}

/// Finite scales only: NaN is not equal to itself, and the codec stores the
/// float's bits unchanged anyway.
fn embedding() -> impl Strategy<Value = Embedding> {
    (
        text(),
        any::<f32>().prop_filter("finite scale", |scale| scale.is_finite()),
        vec(any::<i8>(), 0..400),
    )
        .prop_map(|(model, scale, values)| Embedding {
            model,
            scale,
            values,
        })
}

fn session() -> impl Strategy<Value = SessionEvent> {
    (text(), int_u32(), role(), text()).prop_map(|(session, turn, role, content)| SessionEvent {
        session,
        turn,
        role,
        content,
    })
}

fn remembered() -> impl Strategy<Value = Remembered> {
    (
        memory_ref(),
        digest(),
        digest(),
        option::of(text()),
        vec(text(), 0..6),
        tier(),
        option::of(text()),
        int_u16(),
        source(),
        scope(),
        option::of(embedding()),
    )
        .prop_map(
            |(
                reference,
                content_sha256,
                mac,
                summary,
                tags,
                tier,
                room,
                uniqueness_permille,
                source,
                scope,
                embedding,
            )| Remembered {
                reference,
                content_sha256,
                mac,
                summary,
                tags,
                tier,
                room,
                uniqueness_permille,
                source,
                scope,
                embedding,
            },
        )
}

fn reinforced() -> impl Strategy<Value = Reinforced> {
    (int_u64(), option::of(memory_ref()), source()).prop_map(|(memory, evidence, source)| {
        Reinforced {
            memory,
            evidence,
            source,
        }
    })
}

fn contradiction_flagged() -> impl Strategy<Value = ContradictionFlagged> {
    (int_u64(), int_u64(), text()).prop_map(|(memory, other, reason)| ContradictionFlagged {
        memory,
        other,
        reason,
    })
}

fn verdict_recorded() -> impl Strategy<Value = VerdictRecorded> {
    (int_u64(), int_u64(), verdict(), actor(), text()).prop_map(|(a, b, verdict, by, reason)| {
        VerdictRecorded {
            a,
            b,
            verdict,
            by,
            reason,
        }
    })
}

fn distilled() -> impl Strategy<Value = Distilled> {
    (text(), vec(int_u64(), 0..20), int_u16(), option::of(text())).prop_map(
        |(rule, members, confidence_permille, room)| Distilled {
            rule,
            members,
            confidence_permille,
            room,
        },
    )
}

fn tier_changed() -> impl Strategy<Value = TierChanged> {
    (int_u64(), tier(), tier(), text()).prop_map(|(memory, from, to, reason)| TierChanged {
        memory,
        from,
        to,
        reason,
    })
}

fn archived() -> impl Strategy<Value = Archived> {
    (int_u64(), text()).prop_map(|(memory, reason)| Archived { memory, reason })
}

fn forgotten() -> impl Strategy<Value = Forgotten> {
    (int_u64(), actor(), text()).prop_map(|(memory, by, reason)| Forgotten { memory, by, reason })
}

fn graded() -> impl Strategy<Value = Graded> {
    (int_u64(), any::<u8>()).prop_map(|(memory, grade)| Graded { memory, grade })
}

fn recall_filters() -> impl Strategy<Value = RecallFilters> {
    (
        option::of(text()),
        option::of(tier()),
        vec(text(), 0..5),
        option::of(scope()),
        int_u32(),
    )
        .prop_map(|(room, tier, tags, scope, limit)| RecallFilters {
            room,
            tier,
            tags,
            scope,
            limit,
        })
}

fn recalled() -> impl Strategy<Value = Recalled> {
    (
        text(),
        recall_filters(),
        vec(
            (int_u64(), int_u64()).prop_map(|(memory, score_micros)| RecallHit {
                memory,
                score_micros,
            }),
            0..12,
        ),
        prop_oneof![
            Just("keyword".to_owned()),
            Just("hybrid".to_owned()),
            text()
        ],
    )
        .prop_map(|(query, filters, hits, mode)| Recalled {
            query,
            filters,
            hits,
            mode,
        })
}

fn expanded() -> impl Strategy<Value = Expanded> {
    (int_u64(), any::<bool>()).prop_map(|(memory, audit)| Expanded { memory, audit })
}

fn evidence_noted() -> impl Strategy<Value = EvidenceNoted> {
    (int_u64(), actor(), text()).prop_map(|(memory, by, note)| EvidenceNoted { memory, by, note })
}

fn evidence_confirmed() -> impl Strategy<Value = EvidenceConfirmed> {
    (int_u64(), actor(), text(), any::<bool>()).prop_map(|(memory, by, quote, valid)| {
        EvidenceConfirmed {
            memory,
            by,
            quote,
            valid,
        }
    })
}

fn entity_linked() -> impl Strategy<Value = EntityLinked> {
    (int_u64(), text(), text()).prop_map(|(memory, entity, category)| EntityLinked {
        memory,
        entity,
        category,
    })
}

fn gate_denied() -> impl Strategy<Value = GateDenied> {
    (text(), text(), text(), text()).prop_map(|(subject, action, object, reason)| GateDenied {
        subject,
        action,
        object,
        reason,
    })
}

fn discarded() -> impl Strategy<Value = Discarded> {
    (digest(), text()).prop_map(|(content_sha256, reason)| Discarded {
        content_sha256,
        reason,
    })
}

fn checkpoint() -> impl Strategy<Value = Checkpoint> {
    (int_u64(), digest(), digest()).prop_map(|(last_seq, chain_hash, mac)| Checkpoint {
        last_seq,
        chain_hash,
        mac,
    })
}

/// The position of `event`'s variant in `Event`. There is deliberately no
/// wildcard arm: adding a variant breaks this build until it has a strategy
/// in [`variants`].
fn variant_index(event: &Event) -> usize {
    match event {
        Event::Session(_) => 0,
        Event::Remembered(_) => 1,
        Event::Reinforced(_) => 2,
        Event::ContradictionFlagged(_) => 3,
        Event::VerdictRecorded(_) => 4,
        Event::Distilled(_) => 5,
        Event::TierChanged(_) => 6,
        Event::Archived(_) => 7,
        Event::Forgotten(_) => 8,
        Event::Graded(_) => 9,
        Event::Recalled(_) => 10,
        Event::Expanded(_) => 11,
        Event::EvidenceNoted(_) => 12,
        Event::EntityLinked(_) => 13,
        Event::GateDenied(_) => 14,
        Event::Discarded(_) => 15,
        Event::Checkpoint(_) => 16,
        Event::EvidenceConfirmed(_) => 17,
        Event::TtlSet(_) => 18,
        Event::Embedded(_) => 19,
        Event::UniquenessScored(_) => 20,
        Event::CorridorPlaced(_) => 21,
        Event::Purged(_) => 22,
    }
}

/// One strategy per variant of `Event`, in declaration order.
fn variants() -> Vec<BoxedStrategy<Event>> {
    vec![
        session().prop_map(Event::Session).boxed(),
        remembered().prop_map(Event::Remembered).boxed(),
        reinforced().prop_map(Event::Reinforced).boxed(),
        contradiction_flagged()
            .prop_map(Event::ContradictionFlagged)
            .boxed(),
        verdict_recorded().prop_map(Event::VerdictRecorded).boxed(),
        distilled().prop_map(Event::Distilled).boxed(),
        tier_changed().prop_map(Event::TierChanged).boxed(),
        archived().prop_map(Event::Archived).boxed(),
        forgotten().prop_map(Event::Forgotten).boxed(),
        graded().prop_map(Event::Graded).boxed(),
        recalled().prop_map(Event::Recalled).boxed(),
        expanded().prop_map(Event::Expanded).boxed(),
        evidence_noted().prop_map(Event::EvidenceNoted).boxed(),
        entity_linked().prop_map(Event::EntityLinked).boxed(),
        gate_denied().prop_map(Event::GateDenied).boxed(),
        discarded().prop_map(Event::Discarded).boxed(),
        checkpoint().prop_map(Event::Checkpoint).boxed(),
        evidence_confirmed()
            .prop_map(Event::EvidenceConfirmed)
            .boxed(),
        (int_u64(), int_u64())
            .prop_map(|(memory, expires_at_ms)| {
                Event::TtlSet(TtlSet {
                    memory,
                    expires_at_ms,
                })
            })
            .boxed(),
        (int_u64(), embedding())
            .prop_map(|(memory, embedding)| Event::Embedded(Embedded { memory, embedding }))
            .boxed(),
        (int_u64(), any::<u16>())
            .prop_map(|(memory, uniqueness_permille)| {
                Event::UniquenessScored(UniquenessScored {
                    memory,
                    uniqueness_permille,
                })
            })
            .boxed(),
        (any::<bool>(), text(), text(), actor())
            .prop_map(|(room, name, corridor, actor)| {
                Event::CorridorPlaced(CorridorPlaced {
                    placed: if room { Placed::Room } else { Placed::Corridor },
                    name,
                    corridor,
                    actor,
                })
            })
            .boxed(),
        (
            actor(),
            text(),
            vec(int_u64(), 0..8),
            vec(text(), 0..3),
            vec(int_u64(), 0..16),
        )
            .prop_map(|(by, reason, memories, sessions, subjects)| {
                Event::Purged(Purged {
                    by,
                    reason,
                    memories,
                    sessions,
                    subjects,
                })
            })
            .boxed(),
    ]
}

/// Any event, every variant equally likely.
pub(crate) fn any_event() -> Union<BoxedStrategy<Event>> {
    Union::new(variants())
}

/// Decodes `bytes` expecting failure; a panic fails the property.
fn refused(bytes: &[u8]) -> bool {
    decode(bytes).is_err()
}

// ---------------------------------------------------------------------------

#[test]
fn codec_round_trips_every_variant() {
    let variants = variants();
    for (index, strategy) in variants.iter().enumerate() {
        check(
            &format!("round trip of variant {index}"),
            200,
            strategy,
            |event| {
                prop_assert_eq!(variant_index(&event), index);
                let bytes = encode(&event)?;
                let back = decode(&bytes)?;
                prop_assert_eq!(&back, &event);
                // The encoding is canonical: decoding and re-encoding gives
                // the same bytes (what the hash chain and golden logs rely on).
                prop_assert_eq!(encode(&back)?, bytes);
                Ok(())
            },
        );
    }
    assert_eq!(variants.len(), 23, "one strategy per Event variant");
}

#[test]
fn codec_refuses_every_truncation() {
    check("truncations", 200, &any_event(), |event| {
        let bytes = encode(&event)?;
        // Every cut of a short encoding; both ends and a stride of a long one.
        let cuts: Vec<usize> = if bytes.len() <= 600 {
            (0..bytes.len()).collect()
        } else {
            (0..200)
                .chain((200..bytes.len() - 200).step_by(37))
                .chain(bytes.len() - 200..bytes.len())
                .collect()
        };
        for cut in cuts {
            prop_assert!(refused(&bytes[..cut]), "a prefix of {cut} bytes decoded");
        }
        Ok(())
    });
}

#[test]
fn codec_refuses_trailing_bytes() {
    let strategy = (any_event(), vec(any::<u8>(), 1..16));
    check("trailing bytes", 300, &strategy, |(event, extra)| {
        let mut bytes = encode(&event)?;
        bytes.extend_from_slice(&extra);
        match decode(&bytes) {
            Ok(decoded) => prop_assert!(false, "decoded {decoded:?} despite trailing bytes"),
            Err(e) => prop_assert!(e.to_string().contains("trailing"), "{e}"),
        }
        Ok(())
    });
}

#[test]
fn codec_never_panics_on_arbitrary_bytes() {
    let strategy = vec(any::<u8>(), 0..300);
    check("arbitrary bytes", 2000, &strategy, |bytes| {
        if let Ok(event) = decode(&bytes) {
            // Whatever decodes is an event that round-trips from here on.
            let again = encode(&event)?;
            prop_assert_eq!(encode(&decode(&again)?)?, again);
        }
        Ok(())
    });
}

#[derive(Debug, Clone)]
enum Mutation {
    Flip { at: usize, bit: u8 },
    Set { at: usize, byte: u8 },
    Insert { at: usize, byte: u8 },
    Remove { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0..8u8).prop_map(|(at, bit)| Mutation::Flip { at, bit }),
        (
            any::<usize>(),
            prop_oneof![Just(0u8), Just(0xFF), Just(251), Just(253), any::<u8>()]
        )
            .prop_map(|(at, byte)| Mutation::Set { at, byte }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Mutation::Insert { at, byte }),
        any::<usize>().prop_map(|at| Mutation::Remove { at }),
    ]
}

#[test]
fn codec_never_panics_on_damaged_encodings() {
    let strategy = (any_event(), vec(mutation(), 1..5));
    check(
        "damaged encodings",
        1000,
        &strategy,
        |(event, mutations)| {
            let mut bytes = encode(&event)?;
            for m in mutations {
                let n = bytes.len().max(1);
                match m {
                    Mutation::Flip { at, bit } => {
                        if let Some(b) = bytes.get_mut(at % n) {
                            *b ^= 1 << bit;
                        }
                    }
                    Mutation::Set { at, byte } => {
                        if let Some(b) = bytes.get_mut(at % n) {
                            *b = byte;
                        }
                    }
                    Mutation::Insert { at, byte } => bytes.insert(at % (bytes.len() + 1), byte),
                    Mutation::Remove { at } => {
                        if !bytes.is_empty() {
                            bytes.remove(at % n);
                        }
                    }
                }
            }
            if let Ok(decoded) = decode(&bytes) {
                let again = encode(&decoded)?;
                prop_assert_eq!(encode(&decode(&again)?)?, again);
            }
            Ok(())
        },
    );
}

/// A damaged length must be refused by the decode limit, not honoured: these
/// would ask for exabytes if the decoder trusted them.
#[test]
fn codec_refuses_huge_lengths_without_allocating() {
    let huge_u64 = |tag: u8| {
        let mut bytes = vec![tag];
        bytes.push(253); // varint marker: a u64 follows
        bytes.extend_from_slice(&0x0FFF_FFFF_FFFF_FFFFu64.to_le_bytes());
        bytes
    };
    // Session: the session string's length is huge.
    assert!(refused(&huge_u64(0)));
    // Distilled: an empty rule, then a huge member count.
    let mut distilled = vec![5u8, 0];
    distilled.extend_from_slice(&huge_u64(0)[1..]);
    assert!(refused(&distilled));
    // A huge string length followed by only a few bytes of it.
    let mut short = vec![0u8, 252];
    short.extend_from_slice(&u32::MAX.to_le_bytes());
    short.extend_from_slice(b"abc");
    assert!(refused(&short));
    // An unknown variant.
    assert!(refused(&[17, 0, 0, 0]));
    assert!(refused(&[250]));
}

/// Regression: decoding claims each value's in-memory size against the limit
/// (8 bytes for a u64 whose varint took 1), so with a decode limit of
/// `EVENT_BYTES_MAX` an event the log accepted could fail to decode: a log
/// that appends what it can never read back. Every event of up to
/// `EVENT_BYTES_MAX` encoded bytes must decode, whatever its shape.
#[test]
fn codec_decodes_every_event_up_to_the_size_limit() {
    let at_limit = |make: &dyn Fn(usize) -> Event| {
        // Grow the event until one more unit would pass the limit.
        let overhead = encode(&make(0)).unwrap().len();
        let mut n = EVENT_BYTES_MAX - overhead;
        while encode(&make(n)).unwrap().len() > EVENT_BYTES_MAX {
            n -= 1;
        }
        make(n)
    };
    let shapes: [(&str, &dyn Fn(usize) -> Event); 4] = [
        ("content", &|n| {
            support::session_event("s", 1, &"x".repeat(n))
        }),
        ("members", &|n| {
            Event::Distilled(Distilled {
                rule: String::new(),
                members: vec![1; n],
                confidence_permille: 1000,
                room: None,
            })
        }),
        ("tags", &|n| {
            Event::Recalled(Recalled {
                query: String::new(),
                filters: RecallFilters {
                    room: None,
                    tier: None,
                    tags: vec![String::new(); n],
                    scope: None,
                    limit: 10,
                },
                hits: Vec::new(),
                mode: "keyword".to_owned(),
            })
        }),
        ("hits", &|n| {
            Event::Recalled(Recalled {
                query: String::new(),
                filters: RecallFilters {
                    room: None,
                    tier: None,
                    tags: Vec::new(),
                    scope: None,
                    limit: 10,
                },
                hits: vec![
                    RecallHit {
                        memory: 1,
                        score_micros: 0,
                    };
                    n / 2
                ],
                mode: "keyword".to_owned(),
            })
        }),
    ];
    for (shape, make) in shapes {
        let event = at_limit(make);
        let bytes = encode(&event).unwrap();
        assert!(bytes.len() <= EVENT_BYTES_MAX);
        assert!(
            bytes.len() > EVENT_BYTES_MAX - 16,
            "{shape}: near the limit"
        );
        match decode(&bytes) {
            Ok(back) => assert!(back == event, "{shape}: decoded a different event"),
            Err(e) => panic!(
                "{shape}: an event of {} bytes does not decode: {e}",
                bytes.len()
            ),
        }
    }
}

#[test]
fn codec_digest_is_hex_in_json_and_raw_in_the_codec() {
    let mut raw = [0u8; 32];
    for (i, b) in raw.iter_mut().enumerate() {
        *b = u8::try_from(i).unwrap() * 8 + 1;
    }
    let digest = Digest(raw);
    let json = serde_json::to_string(&digest).unwrap();
    let hex: String = raw.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(json, format!("\"{hex}\""));
    assert_eq!(serde_json::from_str::<Digest>(&json).unwrap(), digest);
    assert_eq!(
        serde_json::from_str::<Digest>(&json.to_uppercase()).unwrap(),
        digest,
        "upper-case hex is accepted"
    );
    // Wrong length, not hex, not a string.
    assert!(serde_json::from_str::<Digest>("\"abcd\"").is_err());
    assert!(serde_json::from_str::<Digest>(&format!("\"{}\"", "zz".repeat(32))).is_err());
    assert!(serde_json::from_str::<Digest>(&format!("\"{hex}00\"")).is_err());
    assert!(serde_json::from_str::<Digest>("[1,2,3]").is_err());
    // Inside an event's JSON fields too.
    let discarded = Event::Discarded(Discarded {
        content_sha256: digest,
        reason: "low entropy".to_owned(),
    });
    let fields = discarded
        .serialize_fields(serde_json::value::Serializer)
        .unwrap();
    assert_eq!(fields["content_sha256"], serde_json::Value::String(hex));
    assert_eq!(fields["reason"], "low entropy");
    // The binary codec stores the 32 raw bytes, no length, no hex: variant
    // tag 15 (Discarded), the digest, then the reason's length and bytes.
    let bytes = encode(&discarded).unwrap();
    let mut expected = vec![15u8];
    expected.extend_from_slice(&raw);
    expected.push(11);
    expected.extend_from_slice(b"low entropy");
    assert_eq!(bytes, expected);
}
