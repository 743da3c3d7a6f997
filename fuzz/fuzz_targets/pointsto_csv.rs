#![no_main]
//! Call tree CSV: the input is split on NUL bytes into the report's files (three for the
//! 24.1+ layout, seven for the legacy one, chosen by how many parts there are); reading
//! never panics. Also reads the input as `used_*` lists and as a report file name.
use libfuzzer_sys::fuzz_target;
use pointsto::call_tree::CallGraph;
use pointsto::call_tree::csv::CsvFile;

fuzz_target!(|data: &[u8]| {
    let parts: Vec<&[u8]> = data.split(|&b| b == 0).collect();
    let files: &[CsvFile] = if parts.len() <= 3 {
        &[CsvFile::Methods, CsvFile::Invokes, CsvFile::Targets]
    } else {
        &[
            CsvFile::Vm,
            CsvFile::Methods,
            CsvFile::VirtualMethods,
            CsvFile::EntryPoints,
            CsvFile::DirectEdges,
            CsvFile::OverrideByEdges,
            CsvFile::VirtualEdges,
        ]
    };
    let open = |file: CsvFile| {
        files
            .iter()
            .position(|f| *f == file)
            .and_then(|i| parts.get(i).copied())
    };
    if let Ok(graph) = CallGraph::read_csv(open) {
        let _ = pointsto::write::call_tree_txt(&graph);
    }
    let _ = pointsto::used::methods(data);
    let _ = pointsto::used::names(data);
    if let Ok(name) = std::str::from_utf8(data) {
        let _ = pointsto::file_name::ReportFileName::parse(name);
    }
});
