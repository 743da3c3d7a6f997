//! The tag tables of the format, each constant declared once with its value, the name error
//! messages give it and its description ([`tags!`]).

/// Declares a tag table: a module of `u8` constants, a function naming each tag as error
/// messages do (`"UTF8 record"`), and a function telling the known tags.
///
/// ```text
/// tags! {
///     /// Top-level record tags.
///     pub mod tag;
///     /// The record's name as error messages give it, by tag.
///     pub(crate) fn record_what -> " record", else "record with an unknown tag";
///     /// Whether `t` is one of the tags this crate decodes.
///     pub fn is_known_tag;
///     UTF8 = 0x01, "UTF8", "`STRING_IN_UTF8`.";
/// }
/// ```
macro_rules! tags {
    (
        $(#[$module_doc:meta])*
        pub mod $module:ident;
        $(#[$what_doc:meta])*
        $what_vis:vis fn $what:ident -> $suffix:literal, else $unknown:literal;
        $(#[$known_doc:meta])*
        $known_vis:vis fn $known:ident;
        $( $name:ident = $value:literal, $spec_name:literal, $doc:literal; )*
    ) => {
        $(#[$module_doc])*
        pub mod $module {
            $( #[doc = $doc] pub const $name: u8 = $value; )*
        }

        $(#[$what_doc])*
        $what_vis fn $what(t: u8) -> &'static str {
            match t {
                $( $module::$name => concat!($spec_name, $suffix), )*
                _ => $unknown,
            }
        }

        $(#[$known_doc])*
        $known_vis fn $known(t: u8) -> bool {
            matches!(t, $( $module::$name )|*)
        }
    };
}

pub(crate) use tags;
