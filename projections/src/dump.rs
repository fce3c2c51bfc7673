//! Everything the views persisted, as plain bytes in key order: the object
//! of the determinism checks ("replay twice, get the same bytes") and a way
//! for an auditor to compare two stores' views.

use redb::{ReadableDatabase, ReadableTable, TableDefinition};

use crate::audit::{BY_MEMORY, BY_SESSION};
use crate::error::ViewError;
use crate::view::{META, SNAPSHOTS, open_if_exists};

/// One persisted row: table name, key bytes, value bytes.
pub type Row = (&'static str, Vec<u8>, Vec<u8>);

fn rows<K, V>(
    db: &impl ReadableDatabase,
    table: TableDefinition<K, V>,
    name: &'static str,
    key: impl Fn(K::SelfType<'_>) -> Vec<u8>,
    value: impl Fn(V::SelfType<'_>) -> Vec<u8>,
    out: &mut Vec<Row>,
) -> Result<(), ViewError>
where
    K: redb::Key + 'static,
    V: redb::Value + 'static,
{
    let txn = db.begin_read()?;
    let Some(table) = open_if_exists(&txn, table)? else {
        return Ok(());
    };
    for row in table.iter()? {
        let (k, v) = row?;
        out.push((name, key(k.value()), value(v.value())));
    }
    Ok(())
}

/// Every row of every view table, tables in a fixed order, rows in key order.
pub fn persisted_rows(db: &impl ReadableDatabase) -> Result<Vec<Row>, ViewError> {
    let mut out = Vec::new();
    let meta_value = |(applied, version, fingerprint): (u64, u32, [u8; 16])| {
        let mut v = applied.to_le_bytes().to_vec();
        v.extend(version.to_le_bytes());
        v.extend(fingerprint);
        v
    };
    rows(
        db,
        META,
        "meta",
        |k: &str| k.as_bytes().to_vec(),
        meta_value,
        &mut out,
    )?;
    rows(
        db,
        SNAPSHOTS,
        "snapshots",
        |k: &str| k.as_bytes().to_vec(),
        |v: &[u8]| v.to_vec(),
        &mut out,
    )?;
    let pair = |(a, b): (u64, u64)| {
        let mut k = a.to_le_bytes().to_vec();
        k.extend(b.to_le_bytes());
        k
    };
    rows(
        db,
        BY_MEMORY,
        "audit_by_memory",
        pair,
        |v: &[u8]| v.to_vec(),
        &mut out,
    )?;
    let session_key = |(s, seq): (&str, u64)| {
        let mut k = s.as_bytes().to_vec();
        k.push(0);
        k.extend(seq.to_le_bytes());
        k
    };
    rows(
        db,
        BY_SESSION,
        "audit_by_session",
        session_key,
        |v: &[u8]| v.to_vec(),
        &mut out,
    )?;
    Ok(out)
}

/// [`persisted_rows`] of the views database file at `path`, opened read-only.
pub fn persisted_rows_at(path: &std::path::Path) -> Result<Vec<Row>, ViewError> {
    let db = redb::ReadOnlyDatabase::open(path)?;
    persisted_rows(&db)
}

/// [`persisted_rows`] with the audit index merged per memory and session:
/// what the views hold, independent of how their commits were batched. The
/// audit view writes one row per memory (or session) per commit, so a view
/// kept live (many small commits) and a rebuild (one commit) hold the same
/// seqs in different rows; every other table is compared as it is.
pub fn logical_rows(db: &impl ReadableDatabase) -> Result<Vec<Row>, ViewError> {
    let mut out: Vec<Row> = Vec::new();
    for (table, key, value) in persisted_rows(db)? {
        if !table.starts_with("audit_") {
            out.push((table, key, value));
            continue;
        }
        // Keys end in the row's first seq (8 bytes); the owner is the rest.
        let split = key.len().saturating_sub(8);
        let (owner, first) = key.split_at(split);
        let first = u64::from_le_bytes(first.try_into().unwrap_or([0; 8]));
        let mut seqs = Vec::new();
        crate::audit::decode_row(first, &value, &mut seqs)?;
        let bytes: Vec<u8> = seqs.iter().flat_map(|s| s.to_le_bytes()).collect();
        match out.last_mut() {
            Some((t, k, v)) if *t == table && k.as_slice() == owner => v.extend(bytes),
            _ => out.push((table, owner.to_vec(), bytes)),
        }
    }
    Ok(out)
}

/// [`logical_rows`] of the views database file at `path`, opened read-only.
pub fn logical_rows_at(path: &std::path::Path) -> Result<Vec<Row>, ViewError> {
    let db = redb::ReadOnlyDatabase::open(path)?;
    logical_rows(&db)
}
