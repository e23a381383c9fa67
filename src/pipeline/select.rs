//! Which of an event's hooks (or groups) a name selects: the configured
//! items in order, folded into one [`NameIndex`] so a selection costs about
//! the same for 10 hooks or 10,000.

use crate::matcher::{NameIndex, NameMatcher};

/// An event's hooks or groups, in configuration order, indexed by matcher.
#[derive(Debug, Clone)]
pub struct Indexed<T> {
    items: Vec<T>,
    index: NameIndex,
}

impl<T> Default for Indexed<T> {
    fn default() -> Self {
        Indexed {
            items: Vec::new(),
            index: NameIndex::default(),
        }
    }
}

impl<T> Indexed<T> {
    /// Indexes `items` by the matcher each one holds. An item whose matcher
    /// is invalid (`None`) is indexed as matching every name, so that it
    /// shows up in every selection, to be reported as skipped, never
    /// silently absent.
    pub fn build(items: Vec<T>, matcher: impl Fn(&T) -> Option<&NameMatcher>) -> Self {
        let index = index(items.iter().map(matcher));
        Indexed { items, index }
    }

    /// Like [`Indexed::build`], for items whose matchers are kept
    /// elsewhere (references into the loaded files).
    pub fn build_with<'m>(items: Vec<T>, matcher: impl Fn(&T) -> Option<&'m NameMatcher>) -> Self {
        let index = index(items.iter().map(matcher));
        Indexed { items, index }
    }

    /// Every item, in order.
    pub fn items(&self) -> &[T] {
        &self.items
    }

    /// The items `target` selects, in order; every item when there is no
    /// target (an event whose dialect ignores matchers).
    pub fn select(&self, target: Option<&str>) -> Vec<&T> {
        match target {
            Some(name) => self
                .index
                .select(name)
                .into_iter()
                .filter_map(|i| self.items.get(i))
                .collect(),
            None => self.items.iter().collect(),
        }
    }
}

fn index<'m>(matchers: impl Iterator<Item = Option<&'m NameMatcher>>) -> NameIndex {
    static ANY: NameMatcher = NameMatcher::Any;
    NameIndex::build(matchers.map(|m| m.unwrap_or(&ANY)).enumerate())
}
