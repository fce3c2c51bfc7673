//! `engram install` and `engram uninstall` on temporary folders: settings
//! merged, never overwritten; install then uninstall leaves every file as
//! it was, byte for byte; bad settings refused with nothing changed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// A project (a git repository) and a home folder, under one temp dir.
struct Folders {
    _tmp: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

impl Folders {
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let project = root.join("shop");
        std::fs::create_dir_all(project.join(".git")).unwrap();
        std::fs::create_dir_all(project.join("src")).unwrap();
        let home = root.join("home");
        std::fs::create_dir_all(&home).unwrap();
        Self {
            _tmp: tmp,
            project,
            home,
        }
    }

    /// `engram ARGS` run in the project's `src/` folder with HOME set.
    fn engram(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_engram"))
            .args(args)
            .current_dir(self.project.join("src"))
            .env("HOME", &self.home)
            .env_remove("ENGRAM_HOME")
            .output()
            .unwrap()
    }

    fn run(&self, args: &[&str], code: i32) -> Output {
        let out = self.engram(args);
        assert_eq!(
            out.status.code(),
            Some(code),
            "engram {args:?}\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

/// Every file under `dir` with its bytes, sorted by path.
/// Every file under `dir` with its bytes, and every folder (`None`): a
/// folder left behind empty is a change too.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Option<Vec<u8>>)> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.push((path.clone(), None));
                stack.push(path);
            } else {
                files.push((path.clone(), Some(std::fs::read(&path).unwrap())));
            }
        }
    }
    files.sort();
    files
}

fn json_file(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Settings a user already has: other servers, other hooks, odd spacing.
fn existing_settings(folders: &Folders) {
    std::fs::write(
        folders.project.join(".mcp.json"),
        "{\"mcpServers\":{\"github\":{\"command\":\"gh-mcp\"}}}",
    )
    .unwrap();
    std::fs::create_dir_all(folders.project.join(".claude")).unwrap();
    std::fs::write(
        folders.project.join(".claude/settings.json"),
        "{\n    \"permissions\": { \"allow\": [\"Bash(ls:*)\"] },\n    \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]}\n}\n",
    )
    .unwrap();
}

#[test]
fn install_then_uninstall_leaves_the_settings_byte_identical() {
    let folders = Folders::new();
    existing_settings(&folders);
    let before = snapshot(&folders.project);

    folders.run(&["install", "claude-code"], 0);
    let mcp = json_file(&folders.project.join(".mcp.json"));
    assert_eq!(mcp["mcpServers"]["github"]["command"], "gh-mcp", "{mcp}");
    assert_eq!(mcp["mcpServers"]["engram"]["args"][0], "mcp", "{mcp}");
    let settings = json_file(&folders.project.join(".claude/settings.json"));
    assert_eq!(settings["permissions"]["allow"][0], "Bash(ls:*)");
    let stop = settings["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop[0]["hooks"][0]["command"], "notify-send done");
    assert!(
        stop[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with("engram hook session-end"),
        "{settings}"
    );
    let prompt = &settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"];
    assert!(
        prompt.as_str().unwrap().ends_with("engram hook prompt"),
        "{prompt}"
    );
    // A backup of each file changed.
    assert!(folders.project.join(".mcp.json.engram-backup").is_file());
    assert!(
        folders
            .project
            .join(".claude/settings.json.engram-backup")
            .is_file()
    );

    // Installing again changes nothing and says so.
    let installed = snapshot(&folders.project);
    let out = folders.run(&["install", "claude-code"], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("already installed"));
    assert_eq!(snapshot(&folders.project), installed);

    folders.run(&["uninstall", "claude-code"], 0);
    assert_eq!(
        snapshot(&folders.project),
        before,
        "byte for byte as before"
    );

    // Uninstalling with nothing installed: an error, nothing changed.
    let out = folders.run(&["uninstall", "claude-code"], 1);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not installed"));
    assert_eq!(snapshot(&folders.project), before);
}

#[test]
fn files_the_install_made_are_removed_by_the_uninstall() {
    let folders = Folders::new();
    for place in [&["--user"][..], &[]] {
        let home_before = snapshot(&folders.home);
        let project_before = snapshot(&folders.project);
        folders.run(&[&["install", "claude-code"][..], place].concat(), 0);
        folders.run(&[&["install", "cursor"][..], place].concat(), 0);
        let (dir, mcp) = if place.is_empty() {
            (&folders.project, folders.project.join(".mcp.json"))
        } else {
            (&folders.home, folders.home.join(".claude.json"))
        };
        assert_eq!(json_file(&mcp)["mcpServers"]["engram"]["args"][0], "mcp");
        assert_eq!(
            json_file(&dir.join(".cursor/mcp.json"))["mcpServers"]["engram"]["args"][0],
            "mcp"
        );
        folders.run(&[&["uninstall", "claude-code"][..], place].concat(), 0);
        folders.run(&[&["uninstall", "cursor"][..], place].concat(), 0);
        assert_eq!(snapshot(&folders.home), home_before);
        assert_eq!(snapshot(&folders.project), project_before);
    }
}

#[test]
fn a_settings_file_that_is_not_json_is_left_untouched_and_nothing_changes() {
    let folders = Folders::new();
    // The first file is fine, the second is broken: neither may change.
    std::fs::create_dir_all(folders.project.join(".claude")).unwrap();
    std::fs::write(
        folders.project.join(".claude/settings.json"),
        "{\"hooks\": [oops",
    )
    .unwrap();
    let before = snapshot(&folders.project);
    let out = folders.run(&["install", "claude-code"], 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not valid JSON"), "{stderr}");
    assert_eq!(snapshot(&folders.project), before);

    // JSON, but hooks of the wrong shape: refused the same way.
    std::fs::write(
        folders.project.join(".claude/settings.json"),
        "{\"hooks\": []}",
    )
    .unwrap();
    let before = snapshot(&folders.project);
    let out = folders.run(&["install", "claude-code"], 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("not a JSON object"), "{stderr}");
    assert_eq!(snapshot(&folders.project), before);
}
