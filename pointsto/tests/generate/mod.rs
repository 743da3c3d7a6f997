//! Report generators for tests and benches: they write call trees and object trees line by
//! line exactly as `iprof-pointsto.md` §2.3/§2.6 say each printer version does, independent of
//! the crate's own writer, and count what they wrote.
#![allow(
    dead_code,
    missing_docs,
    unreachable_pub,
    clippy::indexing_slicing,
    clippy::unwrap_used
)]

/// A small deterministic RNG (SplitMix64).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next() % n }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// Call tree printer generations with distinct line grammars.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// 1.0-rc .. 20.0: `interfacially calls` / `is implemented by`, `entry <M> id=<N> `.
    V20_0,
    /// 20.1 .. 24.0: no interface calls.
    V21,
    /// 24.1: `, parsing reason:  <R> ` on entries (may run onto following lines).
    V24_1,
    /// 24.2 .. 25.0: `<loader>:` prefixes.
    V24_2,
    /// 25.1: loaders may be `<a>-><b>`.
    V25_1,
}

pub const VERSIONS: [Version; 5] = [
    Version::V20_0,
    Version::V21,
    Version::V24_1,
    Version::V24_2,
    Version::V25_1,
];

#[derive(Debug, Clone, Copy)]
pub struct Options {
    pub version: Version,
    pub mangled: bool,
    pub crlf: bool,
}

/// Shape of a generated call tree.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// Entry points (`None`: 1–4 by seed).
    pub entries: Option<u64>,
    /// Percent of callees expanded where they appear (the rest are `id-ref=`).
    pub define_percent: u64,
    /// Invokes per method: 0..max.
    pub max_invokes: u64,
    /// Deepest invoke depth.
    pub max_depth: u64,
}

/// Small, definition-heavy trees for round-trip tests.
pub const TEST_SHAPE: Shape = Shape {
    entries: None,
    define_percent: 45,
    max_invokes: 5,
    max_depth: 9,
};

/// Report-like proportions: most lines are `id-ref=`, trees are deep.
pub const REALISTIC_SHAPE: Shape = Shape {
    entries: None,
    define_percent: 14,
    max_invokes: 14,
    max_depth: 26,
};

/// What a generated call tree holds (the `calltree` example's contract).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallTreeCounts {
    pub entry_points: u64,
    pub methods: u64,
    pub direct_calls: u64,
    pub virtual_calls: u64,
    pub interface_calls: u64,
    pub overrides: u64,
    pub id_refs: u64,
    pub max_depth: u64,
}

struct Line {
    text: String,
    children: Vec<Line>,
}

const PACKAGES: [&str; 5] = [
    "java.lang",
    "java.util.concurrent",
    "com.example.app",
    "org.graalvm.nativeimage.c.type",
    "jdk.internal.misc",
];
const CLASSES: [&str; 6] = [
    "String",
    "HashMap$Node",
    "Main",
    "CCharPointerPointer",
    "Foo$$Lambda/0x0000000800c01234",
    "Outer$Inner$1",
];
const NAMES: [&str; 6] = [
    "<init>",
    "<clinit>",
    "run",
    "lambda$main$0",
    "access$000",
    "hashCode",
];
const TYPES: [&str; 7] = [
    "int",
    "long",
    "java.lang.String",
    "java.lang.Object[]",
    "byte[][]",
    "boolean",
    "java.util.Map$Entry",
];
const LOADERS: [&str; 4] = [
    "null",
    "app",
    "platform",
    "jdk.internal.loader.ClassLoaders$AppClassLoader",
];

fn type_name(rng: &mut Rng) -> String {
    if rng.chance(40) {
        rng.pick(&TYPES).to_string()
    } else {
        format!("{}.{}", rng.pick(&PACKAGES), rng.pick(&CLASSES))
    }
}

fn loader(rng: &mut Rng, version: Version) -> Option<String> {
    match version {
        Version::V24_2 => Some(rng.pick(&LOADERS).to_string()),
        Version::V25_1 if rng.chance(30) => {
            Some(format!("{}->{}", rng.pick(&LOADERS), rng.pick(&LOADERS)))
        }
        Version::V25_1 => Some(rng.pick(&LOADERS).to_string()),
        _ => None,
    }
}

fn method(rng: &mut Rng, loader: Option<String>, qualified_return: bool) -> String {
    let holder = format!("{}.{}", rng.pick(&PACKAGES), rng.pick(&CLASSES));
    let params: Vec<String> = (0..rng.below(4)).map(|_| type_name(rng)).collect();
    let mut text = String::new();
    if let Some(loader) = loader {
        text.push_str(&loader);
        text.push(':');
    }
    text.push_str(&format!(
        "{holder}.{}({})",
        rng.pick(&NAMES),
        params.join(", ")
    ));
    if qualified_return {
        text.push(':');
        text.push_str(&type_name(rng));
    }
    text
}

fn bci(rng: &mut Rng) -> String {
    let mut parts = vec![rng.below(300).to_string()];
    if rng.chance(15) {
        parts[0] = format!("-{}", 1 + rng.below(6));
    }
    for _ in 0..(if rng.chance(20) { 1 + rng.below(3) } else { 0 }) {
        parts.push(rng.below(500).to_string());
    }
    parts.join("->")
}

struct CallTreeGen<'r> {
    rng: &'r mut Rng,
    opts: Options,
    next_id: u64,
    /// Ids that exist (defined now or later, e.g. entry points): refs may point at them.
    known: Vec<u64>,
    signatures: std::collections::HashMap<u64, String>,
    budget: u64,
    counts: CallTreeCounts,
    eol: &'static str,
    shape: Shape,
}

impl CallTreeGen<'_> {
    fn new_method(&mut self) -> (u64, String) {
        let id = self.next_id;
        self.next_id += 1;
        self.known.push(id);
        self.counts.methods += 1;
        let loader = loader(self.rng, self.opts.version);
        let sig = method(self.rng, loader, true);
        self.signatures.insert(id, sig.clone());
        (id, sig)
    }

    /// Children (invokes) of an expanded method at `depth`.
    fn invokes(&mut self, depth: u64) -> Vec<Line> {
        let mut lines = Vec::new();
        let count = if depth > self.shape.max_depth || self.budget == 0 {
            0
        } else {
            self.rng.below(self.shape.max_invokes)
        };
        for _ in 0..count {
            self.budget = self.budget.saturating_sub(1);
            let kind = self.rng.below(10);
            let interface = self.opts.version == Version::V20_0 && kind >= 8;
            if kind < 6 {
                self.counts.direct_calls += 1;
                self.counts.max_depth = self.counts.max_depth.max(depth);
                let b = bci(self.rng);
                if self.rng.chance(self.shape.define_percent) && self.budget > 0 {
                    let (id, sig) = self.new_method();
                    let children = self.invokes(depth + 1);
                    lines.push(Line {
                        text: format!("directly calls {sig} id={id} @bci={b} "),
                        children,
                    });
                } else {
                    let (id, sig) = self.reference();
                    lines.push(Line {
                        text: format!("directly calls {sig} id-ref={id} @bci={b} "),
                        children: vec![],
                    });
                }
            } else {
                self.counts.max_depth = self.counts.max_depth.max(depth);
                let declared = method(self.rng, None, true);
                let b = bci(self.rng);
                let (call, by) = if interface {
                    self.counts.interface_calls += 1;
                    ("interfacially calls", "is implemented by")
                } else {
                    self.counts.virtual_calls += 1;
                    ("virtually calls", "is overridden by")
                };
                let mut children = Vec::new();
                for _ in 0..self.rng.below(4) {
                    self.counts.overrides += 1;
                    self.counts.max_depth = self.counts.max_depth.max(depth + 1);
                    if self.rng.chance(self.shape.define_percent + 5) && self.budget > 0 {
                        let (id, sig) = self.new_method();
                        let grandchildren = self.invokes(depth + 2);
                        children.push(Line {
                            text: format!("{by} {sig} id={id} "),
                            children: grandchildren,
                        });
                    } else {
                        let (id, sig) = self.reference();
                        children.push(Line {
                            text: format!("{by} {sig} id-ref={id} "),
                            children: vec![],
                        });
                    }
                }
                lines.push(Line {
                    text: format!("{call} {declared} @bci={b}"),
                    children,
                });
            }
        }
        lines
    }

    /// A reference to a known method (possibly defined later in the file).
    fn reference(&mut self) -> (u64, String) {
        self.counts.id_refs += 1;
        let id = *self.rng.pick(&self.known);
        let sig = self.signatures.get(&id).cloned().unwrap_or_default();
        (id, sig)
    }
}

/// Generates a call tree TXT report; returns the text and what it holds.
pub fn call_tree(seed: u64, opts: Options, budget: u64) -> (String, CallTreeCounts) {
    call_tree_shaped(seed, opts, budget, TEST_SHAPE)
}

/// Like [`call_tree`], with a chosen [`Shape`].
pub fn call_tree_shaped(
    seed: u64,
    opts: Options,
    budget: u64,
    shape: Shape,
) -> (String, CallTreeCounts) {
    let mut rng = Rng::new(seed);
    let eol = if opts.crlf { "\r\n" } else { "\n" };
    let first_id = if rng.chance(20) { rng.below(1000) } else { 0 };
    let entries = shape.entries.unwrap_or(1 + rng.below(4));
    // Roots get their ids first (BFS), so later subtrees may refer to later entries.
    let mut g = CallTreeGen {
        rng: &mut rng,
        opts,
        next_id: first_id,
        known: Vec::new(),
        signatures: std::collections::HashMap::new(),
        budget,
        counts: CallTreeCounts::default(),
        eol,
        shape,
    };
    let mut entry_methods = Vec::new();
    for _ in 0..entries {
        entry_methods.push(g.new_method());
    }
    g.counts.entry_points = entries;
    let mut roots = Vec::new();
    for (id, sig) in entry_methods {
        let mut text = format!("entry {sig} id={id}");
        match opts.version {
            Version::V20_0 | Version::V21 => text.push(' '),
            _ => {
                let reason = match g.rng.below(5) {
                    0 => "root method".to_string(),
                    1 => "static root method".to_string(),
                    2 => "Registered in class com.oracle.svm.hosted.FeatureImpl, as a reflection root".to_string(),
                    3 => "at com.example.Main.main(Main.java:12) [bci: 3]".to_string(),
                    _ => {
                        let lines = 1 + g.rng.below(3);
                        let mut r = String::from("at com.example.Main.run(Main.java:7) [bci: 0]");
                        for i in 0..lines {
                            r.push_str(eol);
                            r.push_str(&format!("at com.example.Caller{i}.call(Caller{i}.java:{}) [bci: {}]", 10 + i, i));
                        }
                        r
                    }
                };
                text.push_str(&format!(", parsing reason:  {reason} "));
            }
        }
        let children = g.invokes(1);
        roots.push(Line { text, children });
    }
    let counts = g.counts.clone();
    let mut out = String::from("VM Entry Points");
    out.push_str(eol);
    print(&mut out, &roots, &mut Vec::new(), opts.mangled, eol);
    out.push_str(eol);
    (out, counts)
}

/// The tree prefix of a line: one unit per ancestor, then the marker.
fn push_prefix(out: &mut String, path: &[bool], last: bool, mangled: bool) {
    for &ancestor_last in path {
        out.push_str(match (ancestor_last, mangled) {
            (true, _) => "    ",
            (false, false) => "│   ",
            (false, true) => "?   ",
        });
    }
    out.push_str(match (last, mangled) {
        (_, true) => "??? ",
        (false, false) => "├── ",
        (true, false) => "└── ",
    });
}

fn print(out: &mut String, lines: &[Line], path: &mut Vec<bool>, mangled: bool, eol: &str) {
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len();
        push_prefix(out, path, last, mangled);
        out.push_str(&line.text);
        out.push_str(eol);
        path.push(last);
        print(out, &line.children, path, mangled, eol);
        path.pop();
    }
}

/// What a generated object tree holds (the `objecttree` example's contract).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObjectTreeCounts {
    pub roots: u64,
    pub values: u64,
    pub id_refs: u64,
    pub null_fields: u64,
    pub suppressed: u64,
    pub no_fields: u64,
    pub no_elements: u64,
    pub max_depth: u64,
}

struct ObjectGen<'r> {
    rng: &'r mut Rng,
    version: Version,
    next_id: u64,
    budget: u64,
    counts: ObjectTreeCounts,
}

const TO_STRINGS: [&str; 8] = [
    "\"hello worl...\"",
    "java.lang.Object@1b6d3586",
    "Integer:5",
    "weird fields: (no fields) fields:",
    "x id-ref=3 toString=y (expansion suppressed)",
    "byte[12]{1, 2, ...}",
    "\"\\n(no elements)\"",
    "null",
];

impl ObjectGen<'_> {
    fn value_string(&mut self) -> String {
        let s = self.rng.pick(&TO_STRINGS).to_string();
        match self.version {
            Version::V24_2 | Version::V25_1 => format!("{}:{s}", self.rng.pick(&LOADERS)),
            _ => s,
        }
    }

    fn array_type(&mut self) -> String {
        format!("{}[]", type_name(self.rng))
    }

    /// A value line (with `prefix` = `[i] ` for elements) and its subtree.
    fn value(&mut self, depth: u64, prefix: &str, element: bool) -> Line {
        self.counts.max_depth = self.counts.max_depth.max(depth);
        self.budget = self.budget.saturating_sub(1);
        let choice = if depth > 12 || self.budget == 0 {
            4 + self.rng.below(3)
        } else {
            [0, 0, 1, 2, 3, 4, 5, 6][self.rng.below(8) as usize]
        };
        let ts = self.value_string();
        match choice {
            0 | 1 => {
                let id = self.next_id;
                self.next_id += 1;
                self.counts.values += 1;
                let t = format!("{}.{}", self.rng.pick(&PACKAGES), self.rng.pick(&CLASSES));
                let fields = self.rng.below(7);
                if fields == 0 && self.rng.chance(70) {
                    self.counts.no_fields += 1;
                    return Line {
                        text: format!("{prefix}{t} id={id} toString={ts} (no fields)"),
                        children: vec![],
                    };
                }
                // A cycle guard may leave `fields:` without children.
                let children = (0..fields).map(|_| self.field(depth + 1)).collect();
                Line {
                    text: format!("{prefix}{t} id={id} toString={ts} fields:"),
                    children,
                }
            }
            2 | 3 => {
                let id = self.next_id;
                self.next_id += 1;
                self.counts.values += 1;
                let t = self.array_type();
                let elements = self.rng.below(4);
                if elements == 0 {
                    self.counts.no_elements += 1;
                    return Line {
                        text: format!("{prefix}{t} id={id} toString={ts} (no elements)"),
                        children: vec![],
                    };
                }
                let mut index = 0;
                let mut children = Vec::new();
                for _ in 0..elements {
                    index += self.rng.below(3);
                    let element = format!("[{index}] ");
                    index += 1;
                    children.push(self.value(depth + 1, &element, true));
                }
                Line {
                    text: format!("{prefix}{t} id={id} toString={ts} elements (excluding null):"),
                    children,
                }
            }
            4 if self.next_id > 0 => {
                self.counts.id_refs += 1;
                let id = self.rng.below(self.next_id);
                let t = format!("{}.{}", self.rng.pick(&PACKAGES), self.rng.pick(&CLASSES));
                Line {
                    text: format!("{prefix}{t} id-ref={id} toString={ts}"),
                    children: vec![],
                }
            }
            _ => {
                self.counts.suppressed += 1;
                if element {
                    Line {
                        text: format!("{prefix}toString={ts} (expansion suppressed)"),
                        children: vec![],
                    }
                } else {
                    let t = type_name(self.rng);
                    Line {
                        text: format!("{prefix}{t} toString={ts} (expansion suppressed)"),
                        children: vec![],
                    }
                }
            }
        }
    }

    fn field(&mut self, depth: u64) -> Line {
        self.counts.max_depth = self.counts.max_depth.max(depth);
        let name = format!(
            "{}:{}",
            self.rng.pick(&["value", "next", "table", "hash", "this$0"]),
            type_name(self.rng)
        );
        match self.rng.below(5) {
            0 => {
                self.counts.null_fields += 1;
                Line {
                    text: format!("{name} value=null"),
                    children: vec![],
                }
            }
            1 => {
                self.counts.suppressed += 1;
                let ts = self.value_string();
                Line {
                    text: format!("{name} toString={ts} (expansion suppressed)"),
                    children: vec![],
                }
            }
            _ => {
                let child = self.value(depth + 1, "", false);
                Line {
                    text: format!("{name} value:"),
                    children: vec![child],
                }
            }
        }
    }

    fn root_source(&mut self) -> String {
        let loader = match self.version {
            Version::V24_2 | Version::V25_1 => format!("{}:", self.rng.pick(&LOADERS)),
            _ => String::new(),
        };
        let holder = format!("{}.{}", self.rng.pick(&PACKAGES), self.rng.pick(&CLASSES));
        match self.rng.below(3) {
            0 => format!("{loader}{holder}.CACHE:{}", type_name(self.rng)),
            1 => {
                let sig = method(self.rng, None, false);
                format!("{loader}{sig}")
            }
            _ => {
                let sig = method(self.rng, None, false);
                format!("{loader}{sig} [bci: {}]", self.rng.below(100))
            }
        }
    }
}

/// Generates an object tree report; returns the text and what it holds.
pub fn object_tree(seed: u64, opts: Options, budget: u64) -> (String, ObjectTreeCounts) {
    object_tree_with_roots(seed, opts, budget, None)
}

/// Like [`object_tree`], with a chosen number of roots (for large reports).
pub fn object_tree_with_roots(
    seed: u64,
    opts: Options,
    budget: u64,
    roots: Option<u64>,
) -> (String, ObjectTreeCounts) {
    let mut rng = Rng::new(seed);
    let eol = if opts.crlf { "\r\n" } else { "\n" };
    let roots = roots.unwrap_or(1 + rng.below(6));
    let mut g = ObjectGen {
        rng: &mut rng,
        version: opts.version,
        next_id: 0,
        budget,
        counts: ObjectTreeCounts::default(),
    };
    let mut lines = Vec::new();
    for _ in 0..roots {
        g.counts.roots += 1;
        let source = g.root_source();
        let choice = g.rng.below(6);
        if choice == 0 && g.next_id > 0 {
            g.counts.id_refs += 1;
            let id = g.rng.below(g.next_id);
            let ts = g.value_string();
            lines.push(Line {
                text: format!("root {source} id-ref={id} toString={ts}"),
                children: vec![],
            });
        } else if choice == 1 {
            g.counts.suppressed += 1;
            let ts = g.value_string();
            lines.push(Line {
                text: format!("root {source} toString={ts} (expansion suppressed)"),
                children: vec![],
            });
        } else {
            let child = g.value(1, "", false);
            lines.push(Line {
                text: format!("root {source} value:"),
                children: vec![child],
            });
        }
    }
    let counts = g.counts.clone();
    let mut out = String::from("Heap roots");
    out.push_str(eol);
    // Array quirk: `└──` reserved for a null highest index, so the last visible element of
    // some arrays carries `├──` (decided by the seed).
    let quirk = seed % 3 == 0;
    print_objects(&mut out, &lines, &mut Vec::new(), opts.mangled, eol, quirk);
    out.push_str(eol);
    (out, counts)
}

fn print_objects(
    out: &mut String,
    lines: &[Line],
    path: &mut Vec<bool>,
    mangled: bool,
    eol: &str,
    quirk: bool,
) {
    let elements = lines.first().is_some_and(|l| l.text.starts_with('['));
    for (i, line) in lines.iter().enumerate() {
        let last = i + 1 == lines.len() && !(quirk && elements);
        push_prefix(out, path, last, mangled);
        out.push_str(&line.text);
        out.push_str(eol);
        path.push(last);
        print_objects(out, &line.children, path, mangled, eol, quirk);
        path.pop();
    }
}

/// Compares `text` with the committed fixture `tests/data/<name>`, or writes it when
/// `POINTSTO_BLESS=1` (so the fixtures always match the generators).
pub fn fixture(name: &str, text: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    if std::env::var_os("POINTSTO_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with POINTSTO_BLESS=1)", path.display()));
    assert!(
        committed == text,
        "{} is stale (run with POINTSTO_BLESS=1)",
        path.display()
    );
}
