//! Aggregation of values over many contexts: a trie rooted at the outermost frame, and the
//! folded-stack text that flame-graph tools read.

use std::collections::HashMap;
use std::fmt;
use std::ops::AddAssign;

use crate::buf::ContextBuf;
use crate::context::Context;
use crate::frame::Frame;

/// The index of a node in a [`ContextTree`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct NodeId(u32);

/// "No node" in the links below (never a real child or sibling: that is the root's id).
const NONE: u32 = 0;

/// The first this many children of a node are found by walking them; later ones (a node's
/// children past these) through [`ContextTree::index`]. A lookup costs at most this many
/// steps plus one hash lookup.
const WALKED_CHILDREN: usize = 8;

/// A node, in 40 bytes for `u64` values: children are a linked list (first child, last child
/// for appending in insertion order, next sibling) of `u32` ids rather than a `Vec` per node,
/// and the depth is counted when asked for.
#[derive(Debug, Clone)]
struct Node<T> {
    /// The root's is never read ([`NodeRef::frame`] gives `None` for it).
    frame: Frame,
    /// The root's is never read.
    parent: u32,
    first_child: u32,
    last_child: u32,
    next_sibling: u32,
    total: T,
    self_value: T,
}

impl<T: Default> Node<T> {
    fn new(frame: Frame, parent: u32) -> Self {
        Node {
            frame,
            parent,
            first_child: NONE,
            last_child: NONE,
            next_sibling: NONE,
            total: T::default(),
            self_value: T::default(),
        }
    }
}

/// A trie of contexts, outermost frame at the top, that sums a value per context.
///
/// Each node's *self* value is what was inserted for exactly its context; its *total* is the
/// sum of the self values of it and every node below it.
///
/// A tree holds at most `u32::MAX` nodes besides the root; once full, a context that would
/// need a new node is charged to the deepest node of it that exists.
///
/// ```
/// use callctx::{Context, ContextTree};
///
/// let mut tree = ContextTree::new();
/// for (ctx, count) in [("5:0<3:2<1:3", 10u64), ("4:0<3:2<1:3", 5), ("3:2<1:3", 1)] {
///     tree.insert(&Context::parse(ctx)?, count);
/// }
/// assert_eq!(*tree.total(), 16);
///
/// let mut folded = String::new();
/// tree.write_folded(&mut folded, |method| format!("m{method}"))?;
/// assert_eq!(folded, "m1;m3 1\nm1;m3;m5 10\nm1;m3;m4 5\n");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct ContextTree<T> {
    /// `NodeId(n)` is at `nodes[n]`; `nodes[0]` is the root, above every outermost frame.
    nodes: Vec<Node<T>>,
    /// (parent, frame) → child, for each child after a node's first [`WALKED_CHILDREN`]
    /// (those are found by walking them).
    index: HashMap<(u32, Frame), u32>,
}

impl<T: Default + Clone + AddAssign> Default for ContextTree<T> {
    fn default() -> Self {
        ContextTree::new()
    }
}

impl<T: Default + Clone + AddAssign> ContextTree<T> {
    /// An empty tree.
    pub fn new() -> Self {
        ContextTree {
            nodes: vec![Node::new(Frame::new(0, 0), NONE)],
            index: HashMap::new(),
        }
    }

    /// Adds `value` for `ctx`.
    pub fn insert(&mut self, ctx: &Context<'_>, value: T) -> NodeId {
        self.insert_outermost_first(ctx.frames().rev(), value)
    }

    /// Adds `value` for an owned context (an empty one adds to the root's self value).
    pub fn insert_buf(&mut self, ctx: &ContextBuf, value: T) -> NodeId {
        self.insert_outermost_first(ctx.frames().iter().rev().copied(), value)
    }

    /// Adds `value` for the context whose frames are given outermost first.
    pub fn insert_outermost_first(
        &mut self,
        frames: impl IntoIterator<Item = Frame>,
        value: T,
    ) -> NodeId {
        let mut at = 0;
        self.add_total(at, &value);
        for frame in frames {
            let Some(child) = self.child_or_insert(at, frame) else {
                break;
            };
            at = child;
            self.add_total(at, &value);
        }
        if let Some(node) = self.nodes.get_mut(at as usize) {
            node.self_value += value;
        }
        NodeId(at)
    }

    fn add_total(&mut self, id: u32, value: &T) {
        if let Some(node) = self.nodes.get_mut(id as usize) {
            node.total += value.clone();
        }
    }

    /// The child of `parent` for `frame`, made if new (`None` when the tree is full).
    fn child_or_insert(&mut self, parent: u32, frame: Frame) -> Option<u32> {
        let indexed = match self.walk_children(parent, frame) {
            Walked::Found(child) => return Some(child),
            Walked::Absent { indexed } => indexed,
            Walked::Many => match self.index.get(&(parent, frame)) {
                Some(&child) => return Some(child),
                None => true,
            },
        };
        let id = u32::try_from(self.nodes.len()).ok()?;
        let p = self.nodes.get_mut(parent as usize)?;
        let previous_last = p.last_child;
        p.last_child = id;
        if previous_last == NONE {
            p.first_child = id;
        } else if let Some(sibling) = self.nodes.get_mut(previous_last as usize) {
            sibling.next_sibling = id;
        }
        self.nodes.push(Node::new(frame, parent));
        if indexed {
            self.index.insert((parent, frame), id);
        }
        Some(id)
    }
}

/// What [`ContextTree::walk_children`] found.
enum Walked {
    /// The child.
    Found(u32),
    /// No such child among all the children; `indexed` when there are already
    /// [`WALKED_CHILDREN`], so that a new one goes in the index.
    Absent { indexed: bool },
    /// More children than are walked: look in the index.
    Many,
}

impl<T> ContextTree<T> {
    /// The frames and ids of the children of `parent`, in insertion order.
    fn children_of(&self, parent: u32) -> impl Iterator<Item = (Frame, u32)> + '_ {
        let mut next = self
            .nodes
            .get(parent as usize)
            .map_or(NONE, |p| p.first_child);
        std::iter::from_fn(move || {
            if next == NONE {
                return None;
            }
            let id = next;
            let child = self.nodes.get(id as usize)?;
            next = child.next_sibling;
            Some((child.frame, id))
        })
    }

    /// Looks for `frame` among the first [`WALKED_CHILDREN`] children of `parent`.
    fn walk_children(&self, parent: u32, frame: Frame) -> Walked {
        let mut walked = 0;
        for (f, child) in self.children_of(parent) {
            if walked == WALKED_CHILDREN {
                return Walked::Many;
            }
            if f == frame {
                return Walked::Found(child);
            }
            walked += 1;
        }
        Walked::Absent {
            indexed: walked == WALKED_CHILDREN,
        }
    }

    /// The sum of every inserted value.
    pub fn total(&self) -> &T {
        self.root().total()
    }

    /// The number of nodes, not counting the root.
    pub fn len(&self) -> usize {
        self.nodes.len().saturating_sub(1)
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }

    /// The root: the node above every outermost frame ([`NodeRef::frame`] is `None`).
    pub fn root(&self) -> NodeRef<'_, T> {
        match self.node(NodeId(0)) {
            Some(root) => root,
            // `new` makes the root and nothing removes it.
            None => unreachable!("a ContextTree always has its root"),
        }
    }

    /// The node `id`, if it belongs to this tree.
    pub fn node(&self, id: NodeId) -> Option<NodeRef<'_, T>> {
        let node = self.nodes.get(id.0 as usize)?;
        Some(NodeRef {
            tree: self,
            id,
            node,
        })
    }

    /// Finds the node of a context.
    pub fn find(&self, ctx: &Context<'_>) -> Option<NodeRef<'_, T>> {
        let mut at = 0;
        for frame in ctx.frames().rev() {
            at = match self.walk_children(at, frame) {
                Walked::Found(child) => child,
                Walked::Absent { .. } => return None,
                Walked::Many => *self.index.get(&(at, frame))?,
            };
        }
        self.node(NodeId(at))
    }

    /// Every node but the root, depth first (a node before its children, children in
    /// insertion order).
    pub fn iter(&self) -> DepthFirst<'_, T> {
        let mut stack = Vec::new();
        push_children(self, self.root().node(), &mut stack);
        DepthFirst { tree: self, stack }
    }

    /// Writes the folded-stack format flame-graph tools read: one line per node with a
    /// non-zero self value, `outer;…;inner value`, frames named by `name(method_id)`.
    pub fn write_folded<W, F, N>(&self, out: &mut W, mut name: F) -> fmt::Result
    where
        W: fmt::Write,
        F: FnMut(u32) -> N,
        N: fmt::Display,
        T: fmt::Display + Default + PartialEq,
    {
        let zero = T::default();
        for node in self.iter() {
            if *node.self_value() == zero {
                continue;
            }
            let path = node.path();
            for (i, frame) in path.frames().iter().rev().enumerate() {
                if i > 0 {
                    out.write_char(';')?;
                }
                write!(out, "{}", name(frame.method))?;
            }
            writeln!(out, " {}", node.self_value())?;
        }
        Ok(())
    }
}

/// A node of a [`ContextTree`].
#[derive(Debug)]
pub struct NodeRef<'t, T> {
    tree: &'t ContextTree<T>,
    id: NodeId,
    node: &'t Node<T>,
}

impl<T> Clone for NodeRef<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for NodeRef<'_, T> {}

impl<'t, T> NodeRef<'t, T> {
    fn node(&self) -> &'t Node<T> {
        self.node
    }

    /// This node's id.
    pub fn id(&self) -> NodeId {
        self.id
    }

    /// This node's frame (`None` for the root).
    pub fn frame(&self) -> Option<Frame> {
        (self.id.0 != 0).then_some(self.node().frame)
    }

    /// Frames from the root to this node (0 for the root, 1 for outermost frames). Counted
    /// by walking up to the root.
    pub fn depth(&self) -> usize {
        let mut depth = 0;
        let mut at = *self;
        while let Some(parent) = at.parent() {
            depth += 1;
            at = parent;
        }
        depth
    }

    /// The sum of the values inserted for this node's context and every context below it.
    pub fn total(&self) -> &'t T {
        &self.node().total
    }

    /// The sum of the values inserted for exactly this node's context.
    pub fn self_value(&self) -> &'t T {
        &self.node().self_value
    }

    /// The parent node (`None` for the root).
    pub fn parent(&self) -> Option<NodeRef<'t, T>> {
        if self.id.0 == 0 {
            return None;
        }
        self.tree.node(NodeId(self.node().parent))
    }

    /// The child nodes (callees and inlinees), in insertion order.
    pub fn children(&self) -> impl Iterator<Item = NodeRef<'t, T>> + 't {
        let tree = self.tree;
        let mut next = self.node().first_child;
        std::iter::from_fn(move || {
            if next == NONE {
                return None;
            }
            let child = tree.node(NodeId(next))?;
            next = child.node().next_sibling;
            Some(child)
        })
    }

    /// This node's context (empty for the root).
    pub fn path(&self) -> ContextBuf {
        let mut frames = Vec::with_capacity(self.depth());
        let mut at = Some(*self);
        while let Some(node) = at {
            if let Some(frame) = node.frame() {
                frames.push(frame);
            }
            at = node.parent();
        }
        ContextBuf::from_frames(frames)
    }
}

/// Depth-first iteration over a [`ContextTree`], from [`ContextTree::iter`].
#[derive(Debug)]
pub struct DepthFirst<'t, T> {
    tree: &'t ContextTree<T>,
    stack: Vec<NodeId>,
}

impl<'t, T> Iterator for DepthFirst<'t, T> {
    type Item = NodeRef<'t, T>;

    fn next(&mut self) -> Option<Self::Item> {
        let id = self.stack.pop()?;
        let node = self.tree.node(id)?;
        push_children(self.tree, node.node(), &mut self.stack);
        Some(node)
    }
}

/// Pushes the children of `node` on `stack`, last child first (so the first pops first).
fn push_children<T>(tree: &ContextTree<T>, node: &Node<T>, stack: &mut Vec<NodeId>) {
    let from = stack.len();
    let mut next = node.first_child;
    while next != NONE {
        stack.push(NodeId(next));
        next = tree
            .nodes
            .get(next as usize)
            .map_or(NONE, |n| n.next_sibling);
    }
    if let Some(pushed) = stack.get_mut(from..) {
        pushed.reverse();
    }
}
