//! Runs a crate's example binaries the way a person would, and checks the manners every
//! example of the workspace keeps: `--help`, `--version`, exit 2 on a bad flag,
//! `error: PATH: reason` and exit 1 on a missing, empty or foreign file, quiet on a closed pipe.
//!
//! ```no_run
//! let tool = testkit::cli::Example::new("iprof", "iprof-stats");
//! tool.check_manners(&testkit::cli::Inputs {
//!     good: &["tests/data/some.iprof"],
//!     foreign: "../callctx/tests/data/contexts.txt",
//!     big_output: &["tests/data/some.iprof"],
//! });
//! ```

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test support

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Mutex;

/// One example binary of one package of the workspace.
pub struct Example {
    package: &'static str,
    name: &'static str,
    features: Vec<&'static str>,
}

/// The inputs [`Example::check_manners`] runs an example on. Paths are relative to the
/// crate's folder (the tests' working directory).
pub struct Inputs<'a> {
    /// Arguments that make a successful run (the file path among them).
    pub good: &'a [&'a str],
    /// A real file of another format, which the example must reject with exit 1.
    pub foreign: &'a str,
    /// Arguments whose output is long enough that a reader closing the pipe early matters.
    pub big_output: &'a [&'a str],
}

impl Example {
    /// The example `name` of the package `package` (its name in `Cargo.toml`).
    pub fn new(package: &'static str, name: &'static str) -> Self {
        Example {
            package,
            name,
            features: Vec::new(),
        }
    }

    /// Builds the example with these cargo features of its package too.
    pub fn with_features(mut self, features: &[&'static str]) -> Self {
        self.features.extend_from_slice(features);
        self
    }

    /// The path of the built binary. It is built (or found up to date) by cargo once per test
    /// process and example: `cargo test` does not rebuild examples for an integration test,
    /// and a stale binary would test old code.
    pub fn path(&self) -> PathBuf {
        // target/<profile>/deps/<test>-<hash> → target/<profile>/examples/<name>
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().and_then(Path::parent).unwrap();
        let bin = profile_dir.join("examples").join(format!(
            "{}{}",
            self.name,
            std::env::consts::EXE_SUFFIX
        ));
        static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
        let key = format!("{}/{}/{}", self.package, self.name, self.features.join(","));
        let mut built = BUILT
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if !built.contains(&key) {
            let mut cmd = Command::new(env!("CARGO"));
            cmd.args(["build", "-q", "-p", self.package, "--example", self.name]);
            if !self.features.is_empty() {
                cmd.arg("--features").arg(self.features.join(","));
            }
            if profile_dir.file_name().is_some_and(|n| n == "release") {
                cmd.arg("--release");
            }
            let status = cmd.status().unwrap();
            assert!(status.success(), "building example {}", self.name);
            built.push(key);
        }
        bin
    }

    /// Runs the example with `args` and no standard input.
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(self.path())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", self.name))
    }

    /// Runs the example and closes its standard output after reading `keep` bytes, like
    /// `… | head -c KEEP`; returns its exit status code and its standard error.
    pub fn run_closed_pipe(&self, args: &[&str], keep: usize) -> (Option<i32>, String) {
        let mut child = Command::new(self.path())
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut buf = vec![0u8; keep];
        let _ = stdout.read_exact(&mut buf);
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Checks the manners every example keeps (see the module docs); panics with the example's
    /// output on the first that fails.
    pub fn check_manners(&self, inputs: &Inputs<'_>) {
        let name = self.name;
        for flag in ["--help", "-h"] {
            let out = self.run(&[flag]);
            expect(&out, 0, name, flag);
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                text.to_lowercase().contains("usage"),
                "{name} {flag}: no usage on stdout: {text}"
            );
        }
        let out = self.run(&["--version"]);
        expect(&out, 0, name, "--version");
        let text = String::from_utf8_lossy(&out.stdout);
        // Every package of the workspace has the workspace's version, as testkit does.
        assert!(
            text.contains(env!("CARGO_PKG_VERSION")),
            "{name} --version: {text}"
        );

        let out = self.run(&["--no-such-flag"]);
        expect(&out, 2, name, "--no-such-flag");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.to_lowercase().contains("usage"),
            "{name} --no-such-flag: no usage on stderr: {err}"
        );

        let missing = "no/such/file.bin";
        let out = self.run(&replace_path(inputs.good, missing));
        expect(&out, 1, name, "a missing file");
        assert_error_names(&out, missing, name);

        let dir = crate::TempDir::new(&format!("testkit-cli-{name}"));
        let empty = dir.join("empty");
        std::fs::write(&empty, b"").unwrap();
        let empty = empty.to_str().unwrap();
        let out = self.run(&replace_path(inputs.good, empty));
        expect(&out, 1, name, "an empty file");
        assert_error_names(&out, empty, name);
        assert!(
            out.stdout.is_empty(),
            "{name}: printed a result for an empty file: {}",
            String::from_utf8_lossy(&out.stdout)
        );

        let out = self.run(&replace_path(inputs.good, inputs.foreign));
        expect(&out, 1, name, inputs.foreign);
        assert_error_names(&out, inputs.foreign, name);

        let out = self.run(inputs.good);
        expect(&out, 0, name, "a good file");

        let (code, err) = self.run_closed_pipe(inputs.big_output, 1);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("error"),
            "{name}: not quiet on a closed pipe: {err}"
        );
        assert!(
            matches!(code, Some(0) | Some(141) | None),
            "{name}: exit {code:?} on a closed pipe: {err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `args` with the first argument that names an existing file replaced by `path` (the last
/// argument when none does).
fn replace_path<'a>(args: &[&'a str], path: &'a str) -> Vec<&'a str> {
    let mut out = args.to_vec();
    let at = out
        .iter()
        .position(|a| !a.starts_with('-') && Path::new(a).exists())
        .unwrap_or(out.len().saturating_sub(1));
    if let Some(slot) = out.get_mut(at) {
        *slot = path;
    } else {
        out.push(path);
    }
    out
}

/// Panics with the run's output unless it exited with `code`.
pub fn expect(out: &Output, code: i32, name: &str, what: &str) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "{name} on {what}: stdout {} / stderr {}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Panics unless the run's standard error has a line `error: PATH: reason`.
pub fn assert_error_names(out: &Output, path: &str, name: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    let prefix = format!("error: {path}: ");
    assert!(
        err.lines()
            .any(|l| l.starts_with(&prefix) && l.len() > prefix.len()),
        "{name}: expected `{prefix}reason` on stderr, got: {err}"
    );
    assert!(!err.contains("panicked"), "{name} panicked: {err}");
}
