//! [`Str`]: the string of a [`Value`](super::Value) and of an object key.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// An immutable, shared string (`Arc<str>`): cloning is a reference count, so a text passed
/// from the session through the stages into the body is stored once. Reads as a `&str`.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Str(Arc<str>);

impl Str {
    #[inline(always)]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Deref for Str {
    type Target = str;
    #[inline(always)]
    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Str {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Str {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl From<&str> for Str {
    #[inline(never)]
    fn from(s: &str) -> Self {
        Str(Arc::from(s))
    }
}

impl From<&String> for Str {
    fn from(s: &String) -> Self {
        Str::from(s.as_str())
    }
}

impl From<String> for Str {
    #[inline(never)]
    fn from(s: String) -> Self {
        Str::from(s.as_str())
    }
}

impl From<&Str> for Str {
    fn from(s: &Str) -> Self {
        s.clone()
    }
}

impl From<Str> for String {
    fn from(s: Str) -> Self {
        String::from(&*s.0)
    }
}

impl PartialEq<str> for Str {
    #[inline(always)]
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Str {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Str {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Str> for str {
    fn eq(&self, other: &Str) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Str> for &str {
    fn eq(&self, other: &Str) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Str> for String {
    fn eq(&self, other: &Str) -> bool {
        **self == *other.0
    }
}
