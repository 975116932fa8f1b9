//! `Shared<T>`: an `Rc` that compares by pointer, so large values (reports, file sets) can be
//! passed as props without deep comparisons on every render.

use std::ops::Deref;
use std::rc::Rc;

#[derive(Debug, Default)]
pub struct Shared<T>(pub Rc<T>);

impl<T> Shared<T> {
    pub fn new(value: T) -> Self {
        Shared(Rc::new(value))
    }
}

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(Rc::clone(&self.0))
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}
