#![no_main]
//! Object tree TXT: the line reader and the tree parser never panic, and a parsed tree
//! writes back to exactly the bytes it was read from.
use libfuzzer_sys::fuzz_target;
use pointsto::object_tree::{self, ObjectTree, Reader};

fuzz_target!(|data: &[u8]| {
    {
        let mut out = String::new();
        for line in Reader::from_bytes(data) {
            match line {
                Ok((_, line)) => object_tree::write_line(&mut out, &line),
                Err(_) => break,
            }
        }
    }
    if let Ok(tree) = ObjectTree::parse(data) {
        let written = pointsto::write::object_tree_txt(&tree);
        let again = ObjectTree::parse(written.as_bytes()).expect("written text parses");
        assert_eq!(pointsto::write::object_tree_txt(&again), written);
    }
});
