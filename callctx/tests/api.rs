//! The owned form, the tree, serde and hashing.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use callctx::{Context, ContextBuf, ContextTree, Frame};

fn hash_of<T: Hash>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

#[test]
fn context_buf_edits_at_both_ends() {
    let mut buf = ContextBuf::from_frames([Frame::new(3, 2)]);
    buf.push_inner(Frame::new(5, 0));
    buf.push_outer(Frame::new(1, 3));
    assert_eq!(buf.to_string(), "5:0<3:2<1:3");
    assert_eq!(buf.innermost(), Some(Frame::new(5, 0)));
    assert_eq!(buf.outermost(), Some(Frame::new(1, 3)));
    assert!(buf.starts_with(&[Frame::new(5, 0), Frame::new(3, 2)]));
    assert!(buf.ends_with(&[Frame::new(1, 3)]));
    assert_eq!(buf.pop_inner(), Some(Frame::new(5, 0)));
    assert_eq!(buf.pop_outer(), Some(Frame::new(1, 3)));
    assert_eq!(buf.to_string(), "3:2");
    buf.truncate_outer(0);
    assert!(buf.is_empty());
    assert_eq!(buf.pop_inner(), None);
    assert_eq!(buf.to_string(), "");
}

#[test]
fn borrowed_and_owned_agree_on_eq_ord_hash() {
    let texts = [
        "5:0<3:2",
        "5:0",
        "5:0<3:2<1:3",
        "4:0<3:2",
        "5:-1",
        "05:0<3:2",
    ];
    for a in texts {
        for b in texts {
            let (ca, cb) = (Context::parse(a).unwrap(), Context::parse(b).unwrap());
            let (ba, bb) = (ca.to_context_buf(), cb.to_context_buf());
            assert_eq!(ca == cb, ba == bb, "{a} {b}");
            assert_eq!(ca.cmp(&cb), ba.cmp(&bb), "{a} {b}");
            if ca == cb {
                assert_eq!(hash_of(&ca), hash_of(&cb));
            }
        }
        let ctx = Context::parse(a).unwrap();
        assert_eq!(hash_of(&ctx), hash_of(&ctx.to_context_buf()));
    }
    assert!(Context::parse("5:0").unwrap() < Context::parse("5:0<3:2").unwrap());
}

#[test]
fn frames_are_double_ended_and_exact() {
    let ctx = Context::parse("1:1<2:2<3:3<4:4").unwrap();
    let mut it = ctx.frames();
    assert_eq!(it.len(), 4);
    assert_eq!(it.next(), Some(Frame::new(1, 1)));
    assert_eq!(it.next_back(), Some(Frame::new(4, 4)));
    assert_eq!(it.len(), 2);
    assert_eq!(it.next_back(), Some(Frame::new(3, 3)));
    assert_eq!(it.next(), Some(Frame::new(2, 2)));
    assert_eq!(it.next(), None);
    assert_eq!(it.next_back(), None);
}

#[test]
fn callers_and_truncation() {
    let ctx = Context::parse("5:0<3:2<2:2<1:3").unwrap();
    let callers: Vec<String> = std::iter::successors(Some(ctx), Context::callers)
        .map(|c| c.to_string())
        .collect();
    assert_eq!(
        callers,
        ["5:0<3:2<2:2<1:3", "3:2<2:2<1:3", "2:2<1:3", "1:3"]
    );
    assert_eq!(ctx.truncated_outer(0).as_str(), "5:0");
    assert_eq!(ctx.truncated_outer(1).as_str(), "5:0");
    assert_eq!(ctx.truncated_outer(3).as_str(), "5:0<3:2<2:2");
    assert_eq!(ctx.truncated_outer(3).len(), 3);
    assert_eq!(ctx.truncated_outer(9), ctx);
}

#[cfg(feature = "serde")]
#[test]
fn serde_as_string() {
    #[derive(serde::Deserialize)]
    struct Entry<'a> {
        #[serde(borrow)]
        ctx: Context<'a>,
        records: Vec<i64>,
    }
    let json = r#"[{"ctx":"4669:0<19551:34","records":[10]}]"#;
    let entries: Vec<Entry<'_>> = serde_json::from_str(json).unwrap();
    assert_eq!(entries[0].ctx.len(), 2);
    assert_eq!(entries[0].records, [10]);
    assert_eq!(
        serde_json::to_string(&entries[0].ctx).unwrap(),
        r#""4669:0<19551:34""#
    );

    // An escaped string cannot be borrowed: the owned form takes it.
    let escaped = r#""4669:0\u003c19551:34""#;
    assert!(serde_json::from_str::<Context<'_>>(escaped).is_err());
    let owned: ContextBuf = serde_json::from_str(escaped).unwrap();
    assert_eq!(owned.to_string(), "4669:0<19551:34");
    let err = serde_json::from_str::<ContextBuf>(r#""5:0<""#).unwrap_err();
    assert!(err.to_string().contains("expected a method id"), "{err}");
}

#[test]
fn tree_totals_self_values_and_order() {
    let mut tree = ContextTree::new();
    for (ctx, n) in [
        ("5:0<3:2<1:3", 10i64),
        ("4:0<3:2<1:3", 5),
        ("3:2<1:3", 1),
        ("5:0<3:2<1:3", 2),
        ("9:0", 7),
    ] {
        tree.insert(&Context::parse(ctx).unwrap(), n);
    }
    assert_eq!(*tree.total(), 25);
    assert_eq!(tree.len(), 5); // 1:3, 3:2, 5:0, 4:0, 9:0
    let node = tree.find(&Context::parse("3:2<1:3").unwrap()).unwrap();
    assert_eq!(
        (*node.total(), *node.self_value(), node.depth()),
        (18, 1, 2)
    );
    assert_eq!(node.path().to_string(), "3:2<1:3");
    assert_eq!(node.children().count(), 2);
    assert_eq!(node.parent().unwrap().frame(), Some(Frame::new(1, 3)));
    assert!(tree.find(&Context::parse("3:2").unwrap()).is_none());

    let order: Vec<(usize, String)> = tree
        .iter()
        .map(|n| (n.depth(), n.frame().unwrap().to_string()))
        .collect();
    assert_eq!(
        order,
        [(1, "1:3"), (2, "3:2"), (3, "5:0"), (3, "4:0"), (1, "9:0")]
            .map(|(d, f)| (d, f.to_string()))
    );

    let mut folded = String::new();
    tree.write_folded(&mut folded, |m| format!("M{m}")).unwrap();
    assert_eq!(folded, "M1;M3 1\nM1;M3;M5 12\nM1;M3;M4 5\nM9 7\n");
}

/// Nodes with many children (found through the tree's index rather than by walking them)
/// keep their children in insertion order and find each of them, before and after the
/// switch.
#[test]
fn wide_nodes_keep_order_and_find_every_child() {
    let mut tree = ContextTree::new();
    for n in 0..40u32 {
        // Root children 0..40, each with 0..n % 12 children of its own.
        for m in 0..=(n % 12) {
            let ctx = format!("{m}:1<{n}:0");
            tree.insert(&Context::parse(&ctx).unwrap(), 1u64);
            // Every context inserted so far is still found.
            for k in 0..=m {
                let seen = format!("{k}:1<{n}:0");
                assert_eq!(
                    tree.find(&Context::parse(&seen).unwrap())
                        .map(|c| c.path().to_string()),
                    Some(seen)
                );
            }
        }
    }
    let outer: Vec<u32> = tree
        .root()
        .children()
        .map(|c| c.frame().unwrap().method)
        .collect();
    assert_eq!(outer, (0..40).collect::<Vec<_>>());
    let eleven = tree.find(&Context::parse("11:0").unwrap()).unwrap();
    let inner: Vec<u32> = eleven
        .children()
        .map(|c| c.frame().unwrap().method)
        .collect();
    assert_eq!(inner, (0..12).collect::<Vec<_>>());
    assert_eq!(*eleven.total(), 12);
    assert_eq!(eleven.children().next().unwrap().depth(), 2);
    assert!(tree.find(&Context::parse("12:1<11:0").unwrap()).is_none());
    assert!(tree.find(&Context::parse("40:0").unwrap()).is_none());
    assert_eq!(tree.iter().count(), tree.len());
}
