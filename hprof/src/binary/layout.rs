//! Object-field layouts of classes (`hprof.md` §1.5, `CLASS_DUMP` and `INSTANCE_DUMP`): where
//! the object-typed fields of a class's instances lie in their field data (the class's own
//! fields first, then its superclass's, and so on up the chain). Each class's layout is built
//! once, from its superclass's, and all layouts together hold at most a caller-set number of
//! fields, so a dump of long superclass chains cannot make them grow quadratically.
//!
//! The object graph and the columnar export find references through these layouts; the
//! [`Index`](super::index::Index) decodes every field through its own [`ClassLayout`]s
//! (see [`Index::layout`](super::index::Index::layout)), which say why a chain is unusable.
//! All of them walk a superclass chain with `SuperclassChain`, so they agree on where a chain
//! ends (the root, a class without a dump, a loop).
//!
//! [`ClassLayout`]: super::index::ClassLayout

use super::hash::IdMap;
use super::heap_dump::ClassDump;
use super::types::{BasicType, Id, IdSize};

/// An object-typed field of a class layout: its byte offset in an instance's field data, and
/// what the caller keeps about it (a name code, whether it is a `referent`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ObjectField<T> {
    /// Byte offset of the field's value in the instance's field data.
    pub offset: u32,
    /// The caller's data about the field.
    pub tag: T,
}

/// Where the superclass chain of a layout ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainEnd {
    /// At the root (superclass id 0): the layout is whole.
    Root,
    /// At a class without a `CLASS_DUMP`: the layout holds the fields of the classes below it
    /// (only with [`MissingSuperclass::Partial`]).
    MissingClass,
    /// The chain loops: the layout holds the fields of the classes before the loop (only with
    /// [`MissingSuperclass::Partial`]).
    Loop,
}

/// The classes of a superclass chain, from a class up towards the root: each class id with its
/// `CLASS_DUMP` (`None` for a class without one, which ends the chain), then
/// [`end`](SuperclassChain::end) says where the chain ended.
///
/// This is the one walk up a chain that every reader of class layouts shares (the
/// [`Index`](super::index::Index)'s layouts, [`ObjectFieldLayouts`], the object graph's
/// reference classes), so they agree on where a chain ends. A chain that loops ends with
/// [`ChainEnd::Loop`] within a few laps of the loop (Brent's cycle detection), and never after
/// more than `classes + 1` classes, so a loop costs a bounded number of steps.
#[derive(Debug, Clone)]
pub(crate) struct SuperclassChain<D> {
    /// The class to yield next (0: the root is reached).
    next: Id,
    dump: D,
    /// Classes yielded so far.
    steps: usize,
    /// How many classes the dump has.
    classes: usize,
    /// Brent's cycle detection: the class the walk compares against, the steps since it was
    /// set, and the steps after which it is set again.
    tortoise: Id,
    lap: usize,
    power: usize,
    end: Option<ChainEnd>,
}

impl<'d, D: Fn(Id) -> Option<ClassDump<'d>>> SuperclassChain<D> {
    /// The chain of `class_id` (itself first): `dump` gives the `CLASS_DUMP` of a class,
    /// `classes` how many classes there are (a longer chain loops).
    pub(crate) fn new(class_id: Id, classes: usize, dump: D) -> Self {
        SuperclassChain {
            next: class_id,
            dump,
            steps: 0,
            classes,
            tortoise: Id::NULL,
            lap: 0,
            power: 1,
            end: None,
        }
    }

    /// Where the chain ended, once the walk has returned `None` or a class without a dump.
    pub(crate) fn end(&self) -> Option<ChainEnd> {
        self.end
    }
}

impl<'d, D: Fn(Id) -> Option<ClassDump<'d>>> Iterator for SuperclassChain<D> {
    type Item = (Id, Option<ClassDump<'d>>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.end.is_some() {
            return None;
        }
        let id = self.next;
        if id.is_null() {
            self.end = Some(ChainEnd::Root);
            return None;
        }
        if id == self.tortoise || self.steps > self.classes {
            self.end = Some(ChainEnd::Loop);
            return None;
        }
        self.lap += 1;
        if self.lap == self.power {
            self.tortoise = id;
            self.power = self.power.saturating_mul(2);
            self.lap = 0;
        }
        self.steps += 1;
        let dump = (self.dump)(id);
        match &dump {
            Some(c) => self.next = c.super_class_id,
            None => self.end = Some(ChainEnd::MissingClass),
        }
        Some((id, dump))
    }
}

/// One class's layout: a range of [`ObjectFieldLayouts::fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    start: u32,
    end: u32,
    /// Total field bytes of the classes of the layout.
    pub size: u64,
    /// Where its superclass chain ends.
    pub chain_end: ChainEnd,
}

impl Layout {
    const ROOT: Layout = Layout {
        start: 0,
        end: 0,
        size: 0,
        chain_end: ChainEnd::Root,
    };
}

/// What a layout is when a class of its superclass chain has no `CLASS_DUMP`, or the chain
/// loops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MissingSuperclass {
    /// No layout (`None`).
    NoLayout,
    /// The fields of the classes below the missing one ([`ChainEnd`] says so).
    Partial,
}

/// The object-field layouts of a dump's classes, built on demand, each from its superclass's.
///
/// Public for the family's sibling crates (`jvmprof-columnar`); not part of the API.
#[derive(Debug, Clone)]
pub struct ObjectFieldLayouts<T> {
    /// Per class: its layout (`None`: no usable layout).
    layouts: IdMap<Option<Layout>>,
    /// The layout looked up last, by class (instances of one class often come in a row).
    last: Option<(Id, Option<Layout>)>,
    /// The object fields of every layout, one layout after another.
    fields: Vec<ObjectField<T>>,
    /// At most this many fields are kept in `fields`.
    max_fields: usize,
    /// Scratch: the classes between a class and the first superclass with a known layout.
    chain: Vec<Id>,
    missing: MissingSuperclass,
}

impl<T: Copy> ObjectFieldLayouts<T> {
    /// No layout yet, for a dump of `dump_len` bytes: all layouts together hold at most half
    /// as many fields as the dump has bytes (a few bytes of memory per byte of the dump; a
    /// real dump's layouts need a small part of that), and a layout that would pass that
    /// bound is `None`.
    pub fn for_dump(dump_len: usize, missing: MissingSuperclass) -> Self {
        ObjectFieldLayouts {
            layouts: IdMap::default(),
            last: None,
            fields: Vec::new(),
            max_fields: dump_len / 2,
            chain: Vec::new(),
            missing,
        }
    }

    /// Forgets every layout (to build them again once more class dumps are known).
    pub fn clear(&mut self) {
        self.layouts.clear();
        self.last = None;
        self.fields.clear();
    }

    /// The fields of `layout`.
    #[inline]
    pub fn fields(&self, layout: Layout) -> &[ObjectField<T>] {
        self.fields
            .get(layout.start as usize..layout.end as usize)
            .unwrap_or_default()
    }

    /// The layout of `class_id` along its superclass chain, built once per class: `dump`
    /// gives the `CLASS_DUMP` of a class, `classes` how many there are (a longer chain
    /// loops), `tag` what to keep of an object-typed field from its name id (`None`: the
    /// layout is not usable, and is not built again until [`clear`](Self::clear)).
    ///
    /// `None` when the layout would pass the field bound, when a field's `tag` is `None`,
    /// and (with [`MissingSuperclass::NoLayout`]) when a class of the chain has no dump or
    /// the chain loops.
    #[inline]
    pub fn layout<'d>(
        &mut self,
        class_id: Id,
        id_size: IdSize,
        classes: usize,
        dump: impl Fn(Id) -> Option<ClassDump<'d>>,
        tag: impl FnMut(Id) -> Option<T>,
    ) -> Option<Layout> {
        if let Some((id, l)) = self.last {
            if id == class_id {
                return l;
            }
        }
        let l = self.layout_of(class_id, id_size, classes, dump, tag);
        self.last = Some((class_id, l));
        l
    }

    /// [`ObjectFieldLayouts::layout`] without the one-class cache.
    fn layout_of<'d>(
        &mut self,
        class_id: Id,
        id_size: IdSize,
        classes: usize,
        dump: impl Fn(Id) -> Option<ClassDump<'d>>,
        mut tag: impl FnMut(Id) -> Option<T>,
    ) -> Option<Layout> {
        if let Some(&l) = self.layouts.get(&class_id) {
            return l;
        }
        // Up to the first class whose layout is known, or the root, or a class without a
        // dump, or a loop.
        self.chain.clear();
        let partial = |chain_end| match self.missing {
            MissingSuperclass::NoLayout => None,
            MissingSuperclass::Partial => Some(Layout {
                chain_end,
                ..Layout::ROOT
            }),
        };
        let mut walk = SuperclassChain::new(class_id, classes, &dump);
        let mut base = loop {
            let Some((id, c)) = walk.next() else {
                break match walk.end() {
                    Some(ChainEnd::Loop) => partial(ChainEnd::Loop),
                    _ => Some(Layout::ROOT),
                };
            };
            if let Some(&l) = self.layouts.get(&id) {
                break l;
            }
            if c.is_none() {
                break partial(ChainEnd::MissingClass);
            }
            self.chain.push(id);
        };
        // Then down again, each class's layout from its superclass's.
        while let Some(id) = self.chain.pop() {
            base = match (base, dump(id)) {
                (Some(super_layout), Some(c)) => self.extend(&c, super_layout, id_size, &mut tag),
                _ => None,
            };
            self.layouts.insert(id, base);
        }
        base
    }

    /// The layout of class `c`: its own object fields, then those of `super_layout` moved
    /// past its own field bytes. `None` (and nothing kept) past the field bound.
    fn extend(
        &mut self,
        c: &ClassDump<'_>,
        super_layout: Layout,
        id_size: IdSize,
        tag: &mut impl FnMut(Id) -> Option<T>,
    ) -> Option<Layout> {
        let from = self.fields.len();
        let layout = self.push(c, super_layout, id_size, tag);
        if layout.is_none() {
            self.fields.truncate(from);
        }
        layout
    }

    fn push(
        &mut self,
        c: &ClassDump<'_>,
        super_layout: Layout,
        id_size: IdSize,
        tag: &mut impl FnMut(Id) -> Option<T>,
    ) -> Option<Layout> {
        let from = self.fields.len();
        // Every class keeps a copy of its superclasses' fields: a dump of deep hierarchies
        // (a hostile one: a chain of thousands of classes) must not make that quadratic.
        let own_fields = usize::from(c.instance_fields_len);
        let inherited = (super_layout.end as usize).saturating_sub(super_layout.start as usize);
        if from + own_fields + inherited > self.max_fields {
            return None;
        }
        let mut offset = 0usize;
        for f in c.instance_fields() {
            if f.field_type == BasicType::Object {
                let tag = tag(f.name_id)?;
                self.fields.push(ObjectField {
                    offset: u32::try_from(offset).ok()?,
                    tag,
                });
            }
            offset = offset.saturating_add(f.field_type.size(id_size));
        }
        let own = u32::try_from(offset).ok()?;
        for i in super_layout.start..super_layout.end {
            let f = *self.fields.get(i as usize)?;
            self.fields.push(ObjectField {
                offset: f.offset.checked_add(own)?,
                tag: f.tag,
            });
        }
        Some(Layout {
            start: u32::try_from(from).ok()?,
            end: u32::try_from(self.fields.len()).ok()?,
            size: super_layout.size.saturating_add(offset as u64),
            chain_end: super_layout.chain_end,
        })
    }
}
