//! `Service::log` (`GET /api/log`, the panel's Logs view): every filter
//! and limit answers exactly the last matches of the whole log, however
//! the walk back from the end is cut into chunks.

use engram::api::{LogQuery, ServedStore, Service};
use serde_json::{Value, json};

use crate::support::{open_keyed, session_event};

/// A store with well over one walk chunk of events: sessions, memories
/// (one of them forgotten), recalls.
fn service(dir: &std::path::Path) -> (Service, Vec<String>) {
    let service = Service::new(
        ServedStore {
            scope: "store",
            engram: std::sync::Arc::new(open_keyed(dir)),
        },
        Vec::new(),
    );
    let mut memories = Vec::new();
    for batch in 0..70u32 {
        let turns: Vec<_> = (0..9)
            .map(|turn| {
                session_event(
                    &format!("s{}", batch % 3),
                    batch * 9 + turn,
                    &format!("batch {batch} turn {turn} about lanterns"),
                )
            })
            .collect();
        service.engram().append(&turns).unwrap();
        if batch % 10 == 0 {
            let remembered = service
                .remember(
                    &serde_json::from_value(
                        json!({"content": format!("The lantern {batch} hangs in the hall.")}),
                    )
                    .unwrap(),
                )
                .unwrap();
            let id = remembered["id"].as_str().unwrap().to_owned();
            memories.push(id.clone());
            if batch == 30 {
                service
                    .forget(
                        id.parse().unwrap(),
                        &serde_json::from_value(json!({"reason": "moved"})).unwrap(),
                    )
                    .unwrap();
            }
            service
                .recall(&serde_json::from_value(json!({"query": "lantern hall"})).unwrap())
                .unwrap();
        }
    }
    (service, memories)
}

/// Every event of the log, oldest first, read straight from the log.
fn everything(service: &Service) -> Vec<Value> {
    let events: Vec<Value> = service
        .engram()
        .log()
        .replay(1)
        .map(|logged| engram::api::json::logged_event(&logged.unwrap()).unwrap())
        .collect();
    assert_eq!(events.len() as u64, service.engram().log().last_seq());
    events
}

/// The seqs of every event the unlimited `query` answers.
fn seqs_of(service: &Service, query: &Value) -> Vec<u64> {
    let mut query = query.clone();
    query["limit"] = json!(10_000);
    service
        .log(&serde_json::from_value(query).unwrap())
        .unwrap()["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["seq"].as_u64().unwrap())
        .collect()
}

#[test]
fn every_filter_and_limit_answers_the_last_matches_of_the_whole_log() {
    let dir = tempfile::tempdir().unwrap();
    let (service, memories) = service(dir.path());
    let all = everything(&service);
    assert!(
        all.len() > 600,
        "{} events: too few to cross chunks",
        all.len()
    );
    let ts_at = |seq: usize| all[seq - 1]["ts"].as_str().unwrap().to_owned();
    let ms_at = |seq: usize| all[seq - 1]["ts_ms"].as_u64().unwrap();

    let mut queries = Vec::new();
    for limit in [1, 2, 255, 256, 257, 300, 10_000] {
        queries.push(json!({"limit": limit}));
        for kind in [
            "session",
            "remembered",
            "recalled",
            "forgotten",
            "no_such_kind",
        ] {
            queries.push(json!({"limit": limit, "kind": kind}));
        }
        for (from, to) in [(1, 1), (5, 600), (257, 513), (300, 300)] {
            queries.push(json!({"limit": limit, "from": from, "to": to}));
            queries.push(json!({"limit": limit, "from": from, "to": to, "kind": "session"}));
        }
        for seq in [1, 200, 450, all.len()] {
            queries.push(json!({"limit": limit, "since": ts_at(seq)}));
            queries.push(json!({"limit": limit, "until": ts_at(seq)}));
            queries.push(json!({"limit": limit, "since": ts_at(seq / 2 + 1), "until": ts_at(seq), "kind": "session"}));
        }
        queries.push(json!({"limit": limit, "session": "s1"}));
        queries.push(json!({"limit": limit, "session": "s2", "from": 100, "to": 400}));
    }
    assert_eq!(memories.len(), 7);
    for memory in &memories {
        queries.push(json!({"memory": memory}));
        queries.push(json!({"memory": memory, "limit": 1}));
        queries.push(json!({"memory": memory, "kind": "recalled", "limit": 2}));
    }

    for query in queries {
        let q: LogQuery = serde_json::from_value(query.clone()).unwrap();
        let answer = service.log(&q).unwrap();
        let limit = q.limit.unwrap_or(200);
        let since = q.since.as_ref().map(|_| {
            let seq = all
                .iter()
                .position(|e| Some(e["ts"].as_str().unwrap()) == q.since.as_deref());
            ms_at(seq.unwrap() + 1)
        });
        let until = q.until.as_ref().map(|_| {
            let seq = all
                .iter()
                .position(|e| Some(e["ts"].as_str().unwrap()) == q.until.as_deref());
            ms_at(seq.unwrap() + 1)
        });
        // Which events name a memory or belong to a session is the audit
        // index's to say: its unfiltered answer is the set to cut down.
        let indexed = (q.memory.is_some() || q.session.is_some()).then(|| {
            let mut index_only = json!({});
            for field in ["memory", "session"] {
                if !query[field].is_null() {
                    index_only[field] = query[field].clone();
                }
            }
            seqs_of(&service, &index_only)
        });
        let matching: Vec<&Value> = all
            .iter()
            .filter(|e| {
                let seq = e["seq"].as_u64().unwrap();
                let ts = e["ts_ms"].as_u64().unwrap();
                q.from.is_none_or(|f| seq >= f)
                    && q.to.is_none_or(|t| seq <= t)
                    && q.kind.as_deref().is_none_or(|k| e["kind"] == k)
                    && since.is_none_or(|s| ts >= s)
                    && until.is_none_or(|u| ts <= u)
                    && indexed.as_ref().is_none_or(|seqs| seqs.contains(&seq))
            })
            .collect();
        let expected: Vec<&Value> = matching[matching.len().saturating_sub(limit)..].to_vec();
        let got: Vec<&Value> = answer["events"].as_array().unwrap().iter().collect();
        assert_eq!(got, expected, "{query}");
    }
}
