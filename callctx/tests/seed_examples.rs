//! Every context example of the seed document (`iprof-format.ja.txt`, "部分コール・コンテキスト"
//! and the profile sections) and of the schema facts (`iprof-pointsto.md` §1).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use callctx::{Context, ContextBuf, ErrorKind, Expected, Frame};

fn frames(text: &str) -> Vec<(u32, i32)> {
    Context::parse(text)
        .unwrap()
        .frames()
        .map(|f| (f.method, f.bci))
        .collect()
}

#[test]
fn method_start_not_inlined() {
    // "BCI 0のmain、ID:BCI表記では1:0"
    assert_eq!(frames("1:0"), [(1, 0)]);
    // "mainのBCI 3の場所を示す1:3"
    assert_eq!(frames("1:3"), [(1, 3)]);
}

#[test]
fn inlined_once() {
    // "2:0<1:3 (BCI 0のID 2のメソッドが、BCI 3のID 1のメソッドにインライン化)"
    let ctx = Context::parse("2:0<1:3").unwrap();
    assert_eq!(ctx.innermost(), Frame::new(2, 0));
    assert_eq!(ctx.outermost(), Frame::new(1, 3));
    // "printEven (printEvenOrOddのBCI 9にあります)のコールは、2:9<1:3"
    assert_eq!(frames("2:9<1:3"), [(2, 9), (1, 3)]);
}

#[test]
fn print_inlined_three_levels() {
    // "5:0<3:2<2:2<1:3 ... printの開始がBCI2のprintEvenにインライン化され、..."
    let ctx = Context::parse("5:0<3:2<2:2<1:3").unwrap();
    assert_eq!(ctx.len(), 4);
    assert_eq!(frames("5:0<3:2<2:2<1:3"), [(5, 0), (3, 2), (2, 2), (1, 3)]);
    // "もう1つは部分コンテキスト(5:0<4:2)" and "これは単に5:0となります"
    assert_eq!(frames("5:0<4:2"), [(5, 0), (4, 2)]);
    assert!(ctx.starts_with(&Context::parse("5:0").unwrap()));
    assert!(
        Context::parse("5:0<4:2")
            .unwrap()
            .starts_with(&Context::parse("5:0").unwrap())
    );
    assert!(!ctx.starts_with(&Context::parse("5:0<4:2").unwrap()));
}

#[test]
fn call_count_profile_examples() {
    // "ctx": "19551:0" and "ctx": "4669:0<19551:34"
    assert_eq!(frames("19551:0"), [(19551, 0)]);
    let ctx = Context::parse("4669:0<19551:34").unwrap();
    assert_eq!(ctx.callers().unwrap(), Context::parse("19551:34").unwrap());
}

#[test]
fn conditional_and_virtual_invoke_examples() {
    assert_eq!(frames("19551:11"), [(19551, 11)]);
    let ctx = Context::parse("3236:11<4669:2<19551:34").unwrap();
    assert_eq!(ctx.outermost(), Frame::new(19551, 34));
    assert!(ctx.ends_with(&Context::parse("4669:2<19551:34").unwrap()));
    assert_eq!(frames("6886:9<6882:23"), [(6886, 9), (6882, 23)]);
}

#[test]
fn monitor_dummy_context() {
    let ctx = Context::parse("0:0").unwrap();
    assert_eq!(ctx.innermost(), Frame::new(0, 0));
    assert_eq!(ctx.len(), 1);
}

#[test]
fn sampling_full_stacks() {
    let text = "11823:38<12811:1<12810:33<12855:25<19551:17<19547:9<19529:10<6305:105<5998:67<5941:0<5903:50<2684:23<2685:1";
    let ctx = Context::parse(text).unwrap();
    assert_eq!(ctx.len(), 13);
    assert_eq!(ctx.innermost(), Frame::new(11823, 38));
    assert_eq!(ctx.outermost(), Frame::new(2685, 1));
    assert_eq!(ctx.to_string(), text);
    let ctx = Context::parse(
        "22500:23<22353:65<22210:15<22187:246<22032:20<22030:1<22027:22<11795:68<11793:12<43854:2",
    )
    .unwrap();
    assert_eq!(ctx.len(), 10);
    assert_eq!(
        ctx.truncated_outer(3).to_string(),
        "22500:23<22353:65<22210:15"
    );
}

#[test]
fn negative_bcis_in_any_frame() {
    // iprof-pointsto.md §1: -1, -4, -5, -6, also in caller frames.
    assert_eq!(
        frames("3982:0<3317:1<43895:-6"),
        [(3982, 0), (3317, 1), (43895, -6)]
    );
    assert_eq!(frames("36432:-4"), [(36432, -4)]);
    assert_eq!(frames("1:-1<2:-5"), [(1, -1), (2, -5)]);
    assert_eq!(frames("1:-2147483648"), [(1, i32::MIN)]);
    assert_eq!(frames("4294967295:2147483647"), [(u32::MAX, i32::MAX)]);
}

fn error(text: &str) -> (usize, ErrorKind, String) {
    let err = Context::parse(text).unwrap_err();
    (err.offset, err.kind, err.to_string())
}

#[test]
fn rejects_bad_input_with_offsets() {
    let end = |expected| ErrorKind::Truncated { expected };
    let got = |expected, found| ErrorKind::Unexpected { expected, found };

    assert_eq!(error("").0, 0);
    assert_eq!(error("").1, end(Expected::MethodId));
    assert_eq!(error("5").1, end(Expected::Colon));
    assert_eq!(error("5").0, 1);
    assert_eq!(error("5:").1, end(Expected::Bci));
    assert_eq!(error("5:-").1, end(Expected::Bci));
    assert_eq!(error("5:0<").1, end(Expected::MethodId));
    assert_eq!(error("5:0<").0, 4);
    assert_eq!(error(":0").1, got(Expected::MethodId, ':'));
    assert_eq!(
        error("5:0,3:2"),
        (
            3,
            got(Expected::SeparatorOrEnd, ','),
            "expected '<' or the end of the context at byte 3, found ','".into()
        )
    );
    assert_eq!(error("5:0<<3:2").1, got(Expected::MethodId, '<'));
    assert_eq!(error("5:0 ").1, got(Expected::SeparatorOrEnd, ' '));
    assert_eq!(error(" 5:0").0, 0);
    assert_eq!(error("-5:0").1, got(Expected::MethodId, '-'));
    assert_eq!(error("5:+3").1, got(Expected::Bci, '+'));
    assert_eq!(error("5:0<é:1").1, got(Expected::MethodId, 'é'));
    assert_eq!(
        error("5:0<3").2,
        "expected ':' at byte 5, found the end of the context"
    );
}

#[test]
fn rejects_overflow() {
    assert_eq!(error("4294967296:0").1, ErrorKind::MethodIdOutOfRange);
    assert_eq!(error("1:0<99999999999999999999:0").0, 4);
    assert_eq!(error("1:2147483648").1, ErrorKind::BciOutOfRange);
    assert_eq!(error("1:-2147483649").1, ErrorKind::BciOutOfRange);
    assert_eq!(error("1:2147483648").0, 2);
    // Leading zeros are digits like any other; they do not overflow.
    assert_eq!(frames("0000000000001:00000000000002"), [(1, 2)]);
}

#[test]
fn bytes_and_owned_forms() {
    let ctx = Context::parse_bytes(b"5:0<3:2").unwrap();
    assert_eq!(ctx.as_str(), "5:0<3:2");
    assert!(Context::parse_bytes(b"5:0<\xff").is_err());
    let buf: ContextBuf = "007:0<3:2".parse().unwrap();
    assert_eq!(buf.to_string(), "7:0<3:2");
    assert_eq!(Context::parse("007:0<3:2").unwrap(), buf);
    assert_eq!(Context::parse("007:0<3:2").unwrap().as_str(), "007:0<3:2");
}
