//! The events of engram. An event records a fact that happened, never a
//! request; everything that is not a pure function of earlier events (a time,
//! a generated id, an embedding, a redaction) is computed by the command that
//! writes it and stored here, so replay is deterministic.
//!
//! **Format rule:** the codec encodes a variant by its position. Never reorder,
//! remove or change the fields of an existing variant or struct: add new
//! variants at the end of [`Event`], or add a versioned variant and upcast the
//! old one on read. The golden fixture logs under `tests/fixtures` hold every
//! released layout and must keep replaying.

use serde::{Deserialize, Serialize};

/// A memory's id: the seq of the event that created it.
pub type MemoryId = u64;

/// A 32-byte digest (SHA-256 content hash, HMAC tag). Hex in human-readable
/// formats (JSON), raw bytes in the binary codec.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Digest(pub [u8; 32]);

impl std::fmt::Debug for Digest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", hex::encode(self.0))
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if serializer.is_human_readable() {
            serializer.serialize_str(&hex::encode(self.0))
        } else {
            self.0.serialize(serializer)
        }
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        if deserializer.is_human_readable() {
            let text = String::deserialize(deserializer)?;
            let bytes = hex::decode(&text).map_err(serde::de::Error::custom)?;
            let array: [u8; 32] = bytes
                .try_into()
                .map_err(|_| serde::de::Error::custom("expected 32 bytes of hex"))?;
            Ok(Digest(array))
        } else {
            Ok(Digest(<[u8; 32]>::deserialize(deserializer)?))
        }
    }
}

/// Who spoke a turn of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    User,
    Assistant,
    Tool,
    System,
    /// Plain content remembered through the API, recorded as its own turn.
    Note,
}

/// One raw turn of a conversation: the L1 session log memories point into.
/// Content is redacted before it is appended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionEvent {
    pub session: String,
    pub turn: u32,
    pub role: Role,
    pub content: String,
}

/// Storage tier of a memory (see the design's Tiers table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tier {
    L1,
    L2,
    L3,
    L4,
}

/// Where a memory came from; feeds the trust score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// Said by the user.
    User,
    /// Written by the model on its own.
    Model,
    /// Extracted from a session log by ingestion.
    Ingest,
    /// A workspace document (L2).
    Document,
    /// Imported from another store.
    Import,
}

/// Who made a decision (a forget, a verdict, a confirmation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Actor {
    User,
    Model,
    System,
}

/// Which store scope a memory belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Visible across sessions of this store.
    Store,
    /// Visible only within one session.
    Session(String),
}

/// A reference into the session log: the raw words a memory stands for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryRef {
    pub session: String,
    pub first_seq: u64,
    pub last_seq: u64,
}

/// An embedding recorded at write time, so replay never runs a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embedding {
    /// Model identity, e.g. `bge-small-zh-v1.5`.
    pub model: String,
    /// Dequantisation scale: value = `i8` * scale.
    pub scale: f32,
    pub values: Vec<i8>,
}

/// A memory was created.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Remembered {
    pub reference: MemoryRef,
    /// SHA-256 over the canonical bytes of the referenced events.
    pub content_sha256: Digest,
    /// HMAC over the reference and the content hash.
    pub mac: Digest,
    pub summary: Option<String>,
    pub tags: Vec<String>,
    pub tier: Tier,
    /// The palace room the command chose; the slot is derived by the palace projection.
    pub room: Option<String>,
    /// Uniqueness score in thousandths (0..=1000).
    pub uniqueness_permille: u16,
    pub source: Source,
    pub scope: Scope,
    pub embedding: Option<Embedding>,
}

/// A restatement strengthened an existing memory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reinforced {
    pub memory: MemoryId,
    /// The session turns that restated it, when there are any.
    pub evidence: Option<MemoryRef>,
    pub source: Source,
}

/// Two memories disagree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContradictionFlagged {
    pub memory: MemoryId,
    pub other: MemoryId,
    pub reason: String,
}

/// The outcome of adjudicating a contradiction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    KeepA,
    KeepB,
    KeepBoth,
    Shelve,
}

/// A contradiction was adjudicated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictRecorded {
    pub a: MemoryId,
    pub b: MemoryId,
    pub verdict: Verdict,
    pub by: Actor,
    pub reason: String,
}

/// A rule distilled over member memories.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Distilled {
    pub rule: String,
    pub members: Vec<MemoryId>,
    /// Inherited confidence in thousandths.
    pub confidence_permille: u16,
    pub room: Option<String>,
}

/// A memory moved between tiers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TierChanged {
    pub memory: MemoryId,
    pub from: Tier,
    pub to: Tier,
    pub reason: String,
}

/// A memory was archived (decay, eviction, expiry): recalled only when asked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Archived {
    pub memory: MemoryId,
    pub reason: String,
}

/// A memory was forgotten: a tombstone. The log keeps the original events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Forgotten {
    pub memory: MemoryId,
    pub by: Actor,
    pub reason: String,
}

/// An SM-2 self-grade (0-5) from a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Graded {
    pub memory: MemoryId,
    pub grade: u8,
}

/// The filters a recall ran with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecallFilters {
    pub room: Option<String>,
    pub tier: Option<Tier>,
    pub tags: Vec<String>,
    pub scope: Option<Scope>,
    pub limit: u32,
}

/// One hit of a recall, with its score in millionths.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecallHit {
    pub memory: MemoryId,
    pub score_micros: u64,
}

/// A recall ran: retrieval evidence and an LRU touch for every hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recalled {
    pub query: String,
    pub filters: RecallFilters,
    pub hits: Vec<RecallHit>,
    /// `keyword` or `hybrid`.
    pub mode: String,
}

/// A memory was expanded to its original words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Expanded {
    pub memory: MemoryId,
    /// Expanded in audit mode (allowed for forgotten memories).
    pub audit: bool,
}

/// Evidence noted for a memory, in the first layout (format v1): a free note,
/// no check against the source. No longer written; replayed as a valid
/// confirmation, as it was counted when written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceNoted {
    pub memory: MemoryId,
    pub by: Actor,
    pub note: String,
}

/// A quote was checked against a memory's expanded source: `valid` is true
/// only when the quote occurs in the source words and the source verified.
/// Valid evidence raises trust.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EvidenceConfirmed {
    pub memory: MemoryId,
    pub by: Actor,
    pub quote: String,
    pub valid: bool,
}

/// A memory mentions an entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EntityLinked {
    pub memory: MemoryId,
    pub entity: String,
    pub category: String,
}

/// A gate policy refused an operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GateDenied {
    pub subject: String,
    pub action: String,
    pub object: String,
    pub reason: String,
}

/// A save was discarded as low-entropy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Discarded {
    pub content_sha256: Digest,
    pub reason: String,
}

/// A sealed point in the log: the chain hash after `last_seq`, HMAC'd, so an
/// auditor holding the key can pin the log's length (truncation evidence).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checkpoint {
    pub last_seq: u64,
    pub chain_hash: Digest,
    pub mac: Digest,
}

/// A memory got a time to live: past `expires_at_ms`, maintenance archives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TtlSet {
    pub memory: MemoryId,
    /// Unix milliseconds.
    pub expires_at_ms: u64,
}

/// A memory got a vector after it was written (a model configured later,
/// or another model): `engram reembed`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Embedded {
    pub memory: MemoryId,
    pub embedding: Embedding,
}

/// Maintenance recomputed a memory's uniqueness against the memories now
/// near it (a near-duplicate saved later lowers it; one forgotten raises
/// it): the score the renovation list reads from here on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UniquenessScored {
    pub memory: MemoryId,
    /// Uniqueness score in thousandths (0..=1000).
    pub uniqueness_permille: u16,
}

/// What a [`CorridorPlaced`] places.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Placed {
    /// A room's topic: the room and every successor it opens.
    Room,
    /// A corridor, inside another corridor.
    Corridor,
}

/// A room (its topic) or a corridor was put on a corridor: by the save
/// that opened the room (`system`), or moved by the user or a model. The
/// latest placement of a name holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorridorPlaced {
    pub placed: Placed,
    /// The room's topic (the first room of its chain), or the corridor.
    pub name: String,
    /// The corridor it is now on.
    pub corridor: String,
    pub actor: Actor,
}

/// Words were erased (issue 19's crypto-shredding): the data keys of
/// `subjects` are destroyed once this event is durable, so every sealed
/// field of those events opens as erased from then on. Structure stays: the
/// log, its chain and every seal verify as before.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Purged {
    pub by: Actor,
    /// Why, in the clear: never the erased words themselves.
    pub reason: String,
    /// The memories purged, by id.
    pub memories: Vec<MemoryId>,
    /// The sessions purged whole, by name.
    pub sessions: Vec<String>,
    /// Every subject (the seq of an event whose content is sealed under its
    /// own data key) whose key is destroyed, ascending.
    pub subjects: Vec<u64>,
}

/// Every kind of event. Variants are encoded by position: append only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Event {
    Session(SessionEvent),
    Remembered(Remembered),
    Reinforced(Reinforced),
    ContradictionFlagged(ContradictionFlagged),
    VerdictRecorded(VerdictRecorded),
    Distilled(Distilled),
    TierChanged(TierChanged),
    Archived(Archived),
    Forgotten(Forgotten),
    Graded(Graded),
    Recalled(Recalled),
    Expanded(Expanded),
    /// Position 12: the v1 evidence layout, read back from old logs only.
    EvidenceNoted(EvidenceNoted),
    EntityLinked(EntityLinked),
    GateDenied(GateDenied),
    Discarded(Discarded),
    Checkpoint(Checkpoint),
    EvidenceConfirmed(EvidenceConfirmed),
    TtlSet(TtlSet),
    Embedded(Embedded),
    UniquenessScored(UniquenessScored),
    CorridorPlaced(CorridorPlaced),
    /// Position 22.
    Purged(Purged),
}

impl Event {
    /// The event's kind as a stable snake_case name (`session`, `remembered`, ...).
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Session(_) => "session",
            Event::Remembered(_) => "remembered",
            Event::Reinforced(_) => "reinforced",
            Event::ContradictionFlagged(_) => "contradiction_flagged",
            Event::VerdictRecorded(_) => "verdict_recorded",
            Event::Distilled(_) => "distilled",
            Event::TierChanged(_) => "tier_changed",
            Event::Archived(_) => "archived",
            Event::Forgotten(_) => "forgotten",
            Event::Graded(_) => "graded",
            Event::Recalled(_) => "recalled",
            Event::Expanded(_) => "expanded",
            Event::EvidenceNoted(_) => "evidence_noted",
            Event::EntityLinked(_) => "entity_linked",
            Event::GateDenied(_) => "gate_denied",
            Event::Discarded(_) => "discarded",
            Event::Checkpoint(_) => "checkpoint",
            Event::EvidenceConfirmed(_) => "evidence_confirmed",
            Event::TtlSet(_) => "ttl_set",
            Event::Embedded(_) => "embedded",
            Event::UniquenessScored(_) => "uniqueness_scored",
            Event::CorridorPlaced(_) => "corridor_placed",
            Event::Purged(_) => "purged",
        }
    }

    /// Serializes the event's own fields (without the kind) with `serializer`,
    /// e.g. into a JSON object for `engram log --json`.
    pub fn serialize_fields<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Event::Session(e) => e.serialize(serializer),
            Event::Remembered(e) => e.serialize(serializer),
            Event::Reinforced(e) => e.serialize(serializer),
            Event::ContradictionFlagged(e) => e.serialize(serializer),
            Event::VerdictRecorded(e) => e.serialize(serializer),
            Event::Distilled(e) => e.serialize(serializer),
            Event::TierChanged(e) => e.serialize(serializer),
            Event::Archived(e) => e.serialize(serializer),
            Event::Forgotten(e) => e.serialize(serializer),
            Event::Graded(e) => e.serialize(serializer),
            Event::Recalled(e) => e.serialize(serializer),
            Event::Expanded(e) => e.serialize(serializer),
            Event::EvidenceNoted(e) => e.serialize(serializer),
            Event::EntityLinked(e) => e.serialize(serializer),
            Event::GateDenied(e) => e.serialize(serializer),
            Event::Discarded(e) => e.serialize(serializer),
            Event::Checkpoint(e) => e.serialize(serializer),
            Event::EvidenceConfirmed(e) => e.serialize(serializer),
            Event::TtlSet(e) => e.serialize(serializer),
            Event::Embedded(e) => e.serialize(serializer),
            Event::UniquenessScored(e) => e.serialize(serializer),
            Event::CorridorPlaced(e) => e.serialize(serializer),
            Event::Purged(e) => e.serialize(serializer),
        }
    }

    /// The inverse of [`Event::serialize_fields`]: the event of kind `kind`
    /// (a name [`Event::kind`] gives) from its fields, e.g. a line of
    /// `engram export`. Fields other than the kind's own are ignored.
    pub fn deserialize_fields<'de, D: serde::Deserializer<'de>>(
        kind: &str,
        deserializer: D,
    ) -> Result<Self, D::Error> {
        Ok(match kind {
            "session" => Event::Session(Deserialize::deserialize(deserializer)?),
            "remembered" => Event::Remembered(Deserialize::deserialize(deserializer)?),
            "reinforced" => Event::Reinforced(Deserialize::deserialize(deserializer)?),
            "contradiction_flagged" => {
                Event::ContradictionFlagged(Deserialize::deserialize(deserializer)?)
            }
            "verdict_recorded" => Event::VerdictRecorded(Deserialize::deserialize(deserializer)?),
            "distilled" => Event::Distilled(Deserialize::deserialize(deserializer)?),
            "tier_changed" => Event::TierChanged(Deserialize::deserialize(deserializer)?),
            "archived" => Event::Archived(Deserialize::deserialize(deserializer)?),
            "forgotten" => Event::Forgotten(Deserialize::deserialize(deserializer)?),
            "graded" => Event::Graded(Deserialize::deserialize(deserializer)?),
            "recalled" => Event::Recalled(Deserialize::deserialize(deserializer)?),
            "expanded" => Event::Expanded(Deserialize::deserialize(deserializer)?),
            "evidence_noted" => Event::EvidenceNoted(Deserialize::deserialize(deserializer)?),
            "entity_linked" => Event::EntityLinked(Deserialize::deserialize(deserializer)?),
            "gate_denied" => Event::GateDenied(Deserialize::deserialize(deserializer)?),
            "discarded" => Event::Discarded(Deserialize::deserialize(deserializer)?),
            "checkpoint" => Event::Checkpoint(Deserialize::deserialize(deserializer)?),
            "evidence_confirmed" => {
                Event::EvidenceConfirmed(Deserialize::deserialize(deserializer)?)
            }
            "ttl_set" => Event::TtlSet(Deserialize::deserialize(deserializer)?),
            "embedded" => Event::Embedded(Deserialize::deserialize(deserializer)?),
            "uniqueness_scored" => Event::UniquenessScored(Deserialize::deserialize(deserializer)?),
            "corridor_placed" => Event::CorridorPlaced(Deserialize::deserialize(deserializer)?),
            "purged" => Event::Purged(Deserialize::deserialize(deserializer)?),
            other => {
                return Err(serde::de::Error::custom(format!(
                    "unknown event kind {other:?}"
                )));
            }
        })
    }
}

/// An event as read back from the log, with its seq and commit time.
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedEvent {
    pub seq: u64,
    /// Commit time of the event's frame, unix milliseconds.
    pub ts_ms: u64,
    pub event: Event,
    /// The event's words were sealed and its data key destroyed by a purge:
    /// `event` is its skeleton (words emptied, names pseudonymous).
    pub erased: bool,
}
