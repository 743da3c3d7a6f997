#![no_main]
//! Call tree TXT: the line reader, the graph builder and the writer never panic, and a graph
//! that parses writes back to the same bytes it was read from whenever the input was printed
//! in the layout the writer re-creates (checked by re-parsing the written text).
use libfuzzer_sys::fuzz_target;
use pointsto::call_tree::CallGraph;
use pointsto::call_tree::txt::{self, Reader};

fuzz_target!(|data: &[u8]| {
    {
        let mut out = String::new();
        for line in Reader::from_bytes(data) {
            match line {
                Ok((_, line)) => txt::write_line(&mut out, &line),
                Err(_) => break,
            }
        }
    }
    if let Ok(graph) = CallGraph::parse_txt(data) {
        let written = pointsto::write::call_tree_txt(&graph).expect("a parsed graph writes");
        let again = CallGraph::parse_txt(written.as_bytes()).expect("written text parses");
        let rewritten = pointsto::write::call_tree_txt(&again).expect("writes again");
        assert_eq!(written, rewritten);
        let _ = pointsto::diff::CallTreeDiff::new(&graph, &again);
    }
});
