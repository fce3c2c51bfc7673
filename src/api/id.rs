//! Memory ids as the interfaces hand them out and take them back.
//!
//! A memory's id is the seq of its `remembered` event, unique only inside
//! its store; a caller sees the user store and a project store at once, so
//! every id handed out names its store: `u:2` (the user store), `p:2` (the
//! project store), `s:2` (a store folder named with `--store`). Ids are
//! taken in that form, or as a bare number where only one open store has
//! a memory with that id.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use engram_log::MemoryId;
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer};

/// Scope names and the letters that prefix their ids.
const LETTERS: [(&str, &str); 3] = [("user", "u"), ("project", "p"), ("store", "s")];

/// The letter that names `scope`'s store in an id (`u`, `p`, `s`).
#[must_use]
pub fn letter(scope: &str) -> &'static str {
    LETTERS
        .iter()
        .find(|(name, _)| *name == scope)
        .map_or("s", |(_, letter)| letter)
}

/// The id of memory `id` of `scope`'s store as handed out: `u:2`.
#[must_use]
pub fn qualified(scope: &str, id: MemoryId) -> String {
    format!("{}:{id}", letter(scope))
}

/// An id as a caller gave it: `u:2` names the user store's memory 2, a
/// bare `2` whichever open store has a memory 2 (if only one has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IdArg {
    /// The scope name of the store the id names (`user`, `project`,
    /// `store`), `None` for a bare number.
    pub scope: Option<&'static str>,
    pub id: MemoryId,
}

impl IdArg {
    /// A bare number.
    #[must_use]
    pub fn bare(id: MemoryId) -> Self {
        Self { scope: None, id }
    }
}

impl fmt::Display for IdArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.scope {
            Some(scope) => f.write_str(&qualified(scope, self.id)),
            None => write!(f, "{}", self.id),
        }
    }
}

/// An id that is neither `u:N`, `p:N`, `s:N` nor a positive number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not a memory id: give it as recall shows it, `u:2` (the user store), `p:2` (the project store) or `s:2` (a --store folder), or as a bare positive number when only one store has that memory"
)]
pub struct IdError {
    pub text: String,
}

fn positive(text: &str) -> Option<MemoryId> {
    if !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|id| *id > 0)
}

impl FromStr for IdArg {
    type Err = IdError;

    fn from_str(text: &str) -> Result<Self, IdError> {
        let malformed = || IdError {
            text: text.to_owned(),
        };
        match text.split_once(':') {
            None => positive(text).map(Self::bare).ok_or_else(malformed),
            Some((prefix, number)) => {
                let scope = LETTERS
                    .iter()
                    .find(|(_, letter)| *letter == prefix)
                    .map(|(scope, _)| *scope)
                    .ok_or_else(malformed)?;
                let id = positive(number).ok_or_else(malformed)?;
                Ok(Self {
                    scope: Some(scope),
                    id,
                })
            }
        }
    }
}

/// An id is sent as the text it was given in (`u:2`, or a bare `2`).
impl serde::Serialize for IdArg {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for IdArg {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(deserializer) {
            Ok(Raw::Number(id)) if id > 0 => Ok(Self::bare(id)),
            Ok(Raw::Number(id)) => Err(serde::de::Error::custom(IdError {
                text: id.to_string(),
            })),
            Ok(Raw::Text(text)) => text.parse().map_err(serde::de::Error::custom),
            Err(_) => Err(serde::de::Error::custom(
                "a memory id is a string like \"u:2\" or \"p:2\" (or a bare positive number)",
            )),
        }
    }
}

impl JsonSchema for IdArg {
    fn schema_name() -> Cow<'static, str> {
        "MemoryId".into()
    }

    /// Inlined as a plain string, so function-calling front ends that
    /// handle `$ref` or `anyOf` badly see one type. (A JSON number is
    /// still accepted for a bare id.)
    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "A memory id as recall shows it: `u:2` (user store), `p:2` (project store), `s:2` (a --store folder). A bare number is taken only when a single store has that memory.",
            "type": "string",
            "pattern": "^([ups]:)?[1-9][0-9]*$"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_parse_in_both_forms_and_malformed_ones_are_refused() {
        assert_eq!(
            "u:2".parse::<IdArg>(),
            Ok(IdArg {
                scope: Some("user"),
                id: 2
            })
        );
        assert_eq!(
            "p:17".parse::<IdArg>().map(|a| a.to_string()),
            Ok("p:17".to_owned())
        );
        assert_eq!("s:3".parse::<IdArg>().map(|a| a.scope), Ok(Some("store")));
        assert_eq!("2".parse::<IdArg>(), Ok(IdArg::bare(2)));
        for bad in [
            "x:2", "u:", "u:abc", "-1", "0", "u:0", "", ":2", "u:+2", "+2", "u:2:3", "U:2", " 2",
        ] {
            assert!(bad.parse::<IdArg>().is_err(), "{bad:?} parsed");
        }
        assert_eq!(qualified("project", 2), "p:2");
        assert_eq!(qualified("user", 9), "u:9");
    }

    #[test]
    fn ids_deserialize_from_strings_and_numbers() {
        let parse = |v: serde_json::Value| serde_json::from_value::<IdArg>(v);
        assert_eq!(parse(serde_json::json!("u:4")).ok(), "u:4".parse().ok());
        assert_eq!(parse(serde_json::json!(4)).ok(), Some(IdArg::bare(4)));
        assert!(parse(serde_json::json!(0)).is_err());
        assert!(parse(serde_json::json!(-1)).is_err());
        assert!(parse(serde_json::json!("x:4")).is_err());
        assert!(parse(serde_json::json!(null)).is_err());
    }
}
