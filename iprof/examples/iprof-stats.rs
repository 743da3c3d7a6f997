//! `iprof-stats FILE [--top N]`: one JSON object of entry counts, total calls, deepest context
//! and validation findings for an `.iprof` file; `--top N` adds the N hottest methods by call
//! count, with resolved names. gzip input is inflated first. Malformed input: exit code 1 and
//! `FILE:line:column: message`.
#![allow(
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::unwrap_used,
    clippy::expect_used
)]

use std::collections::{BTreeMap, HashMap};
use std::process::ExitCode;

use iprof::{Profile, Section};
use serde::Serialize;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Stats {
    version: String,
    types: usize,
    methods: usize,
    call_count_profiles: usize,
    conditional_profiles: usize,
    virtual_invoke_profiles: usize,
    monitor_profiles: usize,
    sampling_profiles: usize,
    instanceof_profiles: usize,
    total_calls: i64,
    max_context_depth: usize,
    validation: BTreeMap<&'static str, usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    top: Option<Vec<Hot>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Hot {
    id: u32,
    name: String,
    qualified_name: String,
    calls: i64,
}

fn usage() -> ExitCode {
    eprintln!("usage: iprof-stats FILE [--top N]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut path = None;
    let mut top = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--top" => match it.next().and_then(|n| n.parse::<usize>().ok()) {
                Some(n) => top = Some(n),
                None => return usage(),
            },
            _ if path.is_none() => path = Some(arg.clone()),
            _ => return usage(),
        }
    }
    let Some(path) = path else { return usage() };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
    };
    // gzip-compressed profiles (which `--pgo` accepts) are inflated first, up to 1 GiB.
    let bytes = if iprof::is_gzip(&bytes) {
        match iprof::gzip::decompress(&bytes, 1 << 30) {
            Ok(json) => json,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(1);
            }
        }
    } else {
        bytes
    };
    let profile = match Profile::from_slice(&bytes) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{path}:{e}");
            return ExitCode::from(1);
        }
    };
    let report = profile.validate();
    let stats = Stats {
        version: profile.version.to_string(),
        types: profile.types.len(),
        methods: profile.methods.len(),
        call_count_profiles: profile.entries(Section::CallCount).len(),
        conditional_profiles: profile.entries(Section::Conditional).len(),
        virtual_invoke_profiles: profile.entries(Section::VirtualInvoke).len(),
        monitor_profiles: profile.entries(Section::Monitor).len(),
        sampling_profiles: profile.entries(Section::Sampling).len(),
        instanceof_profiles: profile.entries(Section::Instanceof).len(),
        total_calls: profile.total_calls(),
        max_context_depth: profile.max_context_depth(),
        validation: report.all_counts(),
        top: top.map(|n| hottest(&profile, n)),
    };
    println!(
        "{}",
        serde_json::to_string_pretty(&stats).expect("serializable")
    );
    ExitCode::SUCCESS
}

/// The `n` methods with the most calls, summed over every context they were counted in.
fn hottest(profile: &Profile<'_>, n: usize) -> Vec<Hot> {
    let mut calls: HashMap<u32, i64> = HashMap::new();
    for p in profile.call_counts() {
        if let (Some(method), Ok(count)) = (p.method(), p.count()) {
            let sum = calls.entry(method).or_insert(0);
            *sum = sum.saturating_add(count);
        }
    }
    let mut calls: Vec<(u32, i64)> = calls.into_iter().collect();
    calls.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let names = profile.names();
    calls
        .into_iter()
        .take(n)
        .map(|(id, calls)| Hot {
            id,
            name: names.short_method(i64::from(id)),
            qualified_name: names.qualified_method(i64::from(id)),
            calls,
        })
        .collect()
}
