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
pub struct NodeId(usize);

#[derive(Debug, Clone)]
struct Node<T> {
    /// `None` only for the root, which stands above every outermost frame.
    frame: Option<Frame>,
    parent: Option<NodeId>,
    depth: usize,
    children: Vec<NodeId>,
    total: T,
    self_value: T,
}

/// A trie of contexts, outermost frame at the top, that sums a value per context.
///
/// Each node's *self* value is what was inserted for exactly its context; its *total* is the
/// sum of the self values of it and every node below it.
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
    /// The node above every outermost frame, `NodeId(0)`.
    root: Node<T>,
    /// Every other node; `NodeId(n)` is at `nodes[n - 1]`.
    nodes: Vec<Node<T>>,
    index: HashMap<(NodeId, Frame), NodeId>,
}

impl<T: Default + Clone + AddAssign> Default for ContextTree<T> {
    fn default() -> Self {
        ContextTree::new()
    }
}

impl<T: Default + Clone + AddAssign> ContextTree<T> {
    /// An empty tree.
    pub fn new() -> Self {
        let root = Node {
            frame: None,
            parent: None,
            depth: 0,
            children: Vec::new(),
            total: T::default(),
            self_value: T::default(),
        };
        ContextTree {
            root,
            nodes: Vec::new(),
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
        let mut at = NodeId(0);
        self.add_total(at, &value);
        for frame in frames {
            at = self.child_or_insert(at, frame);
            self.add_total(at, &value);
        }
        if let Some(node) = self.node_mut(at) {
            node.self_value += value;
        }
        at
    }

    fn add_total(&mut self, id: NodeId, value: &T) {
        if let Some(node) = self.node_mut(id) {
            node.total += value.clone();
        }
    }

    fn child_or_insert(&mut self, parent: NodeId, frame: Frame) -> NodeId {
        if let Some(&child) = self.index.get(&(parent, frame)) {
            return child;
        }
        let id = NodeId(self.nodes.len() + 1);
        let depth = self.node_mut(parent).map_or(0, |p| p.depth + 1);
        self.nodes.push(Node {
            frame: Some(frame),
            parent: Some(parent),
            depth,
            children: Vec::new(),
            total: T::default(),
            self_value: T::default(),
        });
        if let Some(p) = self.node_mut(parent) {
            p.children.push(id);
        }
        self.index.insert((parent, frame), id);
        id
    }
}

impl<T> ContextTree<T> {
    /// The sum of every inserted value.
    pub fn total(&self) -> &T {
        self.root().total()
    }

    /// The number of nodes, not counting the root.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The root: the node above every outermost frame ([`NodeRef::frame`] is `None`).
    pub fn root(&self) -> NodeRef<'_, T> {
        NodeRef {
            tree: self,
            id: NodeId(0),
            node: &self.root,
        }
    }

    /// The node `id`, if it belongs to this tree.
    pub fn node(&self, id: NodeId) -> Option<NodeRef<'_, T>> {
        let node = match id.0 {
            0 => &self.root,
            n => self.nodes.get(n - 1)?,
        };
        Some(NodeRef {
            tree: self,
            id,
            node,
        })
    }

    fn node_mut(&mut self, id: NodeId) -> Option<&mut Node<T>> {
        match id.0 {
            0 => Some(&mut self.root),
            n => self.nodes.get_mut(n - 1),
        }
    }

    /// Finds the node of a context.
    pub fn find(&self, ctx: &Context<'_>) -> Option<NodeRef<'_, T>> {
        let mut at = NodeId(0);
        for frame in ctx.frames().rev() {
            at = *self.index.get(&(at, frame))?;
        }
        self.node(at)
    }

    /// Every node but the root, depth first (a node before its children, children in
    /// insertion order).
    pub fn iter(&self) -> DepthFirst<'_, T> {
        let stack: Vec<NodeId> = self.root().node().children.iter().rev().copied().collect();
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
        self.node().frame
    }

    /// Frames from the root to this node (0 for the root, 1 for outermost frames).
    pub fn depth(&self) -> usize {
        self.node().depth
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
        self.node().parent.and_then(|id| self.tree.node(id))
    }

    /// The child nodes (callees and inlinees), in insertion order.
    pub fn children(&self) -> impl Iterator<Item = NodeRef<'t, T>> + 't {
        let tree = self.tree;
        self.node()
            .children
            .iter()
            .filter_map(move |&id| tree.node(id))
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
        self.stack
            .extend(node.node().children.iter().rev().copied());
        Some(node)
    }
}
