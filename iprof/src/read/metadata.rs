//! The metadata arrays (iprof format document, "Types" and "Methods"; legacy `typeName` and
//! `methodName`): the ids and names that contexts and records refer to.

use std::borrow::Cow;

use super::json::Cursor;
use super::{set, unknown_member};
use crate::error::Error;
use crate::model::{Extra, Layout, Method, Type};

/// `types`: `[{"id": …, "name": …}, …]` (legacy `typeName`).
pub(super) fn type_list<'a>(
    cur: &mut Cursor<'a>,
    layout: &mut Layout,
) -> Result<Vec<Type<'a>>, Error> {
    let types = "'[' starting the types array";
    cur.array(types, "',' or ']' in the types array", |cur| {
        let start = cur.begin_object("'{' starting a type")?;
        let mut id_name = IdName::default();
        let mut extra = Extra::default();
        let mut first_key = true;
        while let Some((key, at)) = cur.next_key(&mut first_key)? {
            let id_expected = "an integer type id";
            if !id_name.member(cur, &key, at, id_expected, "typeName", layout)? {
                let known = usize::from(id_name.id.is_some()) + usize::from(id_name.name.is_some());
                unknown_member(cur, &mut extra, known, key, at)?;
            }
        }
        Ok(Type {
            id: cur.required(id_name.id, "id", "a type", start)?,
            name: cur.required(id_name.name, "name", "a type", start)?,
            extra,
        })
    })
}

/// The `id` and `name` members of a type or method, as far as read.
#[derive(Default)]
struct IdName<'a> {
    id: Option<i64>,
    name: Option<Cow<'a, str>>,
}

impl<'a> IdName<'a> {
    /// Reads the member `key` (at byte `at`) if it is `id`, `name` or `legacy_name`;
    /// `id_expected` is what the id should be. False for any other key (its value not read).
    fn member(
        &mut self,
        cur: &mut Cursor<'a>,
        key: &str,
        at: usize,
        id_expected: &'static str,
        legacy_name: &str,
        layout: &mut Layout,
    ) -> Result<bool, Error> {
        if key == "id" {
            set(&mut self.id, cur.integer(id_expected)?, key, at, cur)?;
        } else if key == "name" {
            set(&mut self.name, cur.string()?, key, at, cur)?;
        } else if key == legacy_name {
            *layout = Layout::Legacy;
            set(&mut self.name, cur.string()?, key, at, cur)?;
        } else {
            return Ok(false);
        }
        Ok(true)
    }
}

/// `methods`: `[{"id": …, "name": …, "signature": […]}, …]` (legacy `methodName`).
pub(super) fn method_list<'a>(
    cur: &mut Cursor<'a>,
    layout: &mut Layout,
) -> Result<Vec<Method<'a>>, Error> {
    let methods = "'[' starting the methods array";
    cur.array(methods, "',' or ']' in the methods array", |cur| {
        let start = cur.begin_object("'{' starting a method")?;
        let (mut id_name, mut signature) = (IdName::default(), None);
        let mut extra = Extra::default();
        let mut first_key = true;
        while let Some((key, at)) = cur.next_key(&mut first_key)? {
            let id_expected = "an integer method id";
            if *key == *"signature" {
                let value = cur.integers("'[' starting the signature")?;
                set(&mut signature, value, &key, at, cur)?;
            } else if !id_name.member(cur, &key, at, id_expected, "methodName", layout)? {
                let known = usize::from(id_name.id.is_some())
                    + usize::from(id_name.name.is_some())
                    + usize::from(signature.is_some());
                unknown_member(cur, &mut extra, known, key, at)?;
            }
        }
        Ok(Method {
            id: cur.required(id_name.id, "id", "a method", start)?,
            name: cur.required(id_name.name, "name", "a method", start)?,
            signature: cur.required(signature, "signature", "a method", start)?,
            extra,
        })
    })
}
