//! [`NameCache`]: the namespaces and info keys an event receiver has seen,
//! so that decoding the next event that names them allocates nothing (a
//! name is an `Arc<str>`: a cache hit is a reference count, a miss one
//! allocation). Bounded: when full, the oldest entry makes room.

use crate::codec::NameSource;
use crate::{Key, Nspace};

/// Recently decoded namespaces and keys (issue 18: allocation-free
/// decoding on the steady-state event path).
#[derive(Debug, Default, Clone)]
pub struct NameCache {
    nspaces: Vec<Nspace>,
    keys: Vec<Key>,
    cap: usize,
    next_ns: usize,
    next_key: usize,
}

/// Namespaces and keys kept by [`NameCache::new`] (each).
pub const NAME_CACHE_ENTRIES: usize = 64;

impl NameCache {
    /// A cache of [`NAME_CACHE_ENTRIES`] namespaces and as many keys.
    pub fn new() -> Self {
        NameCache {
            cap: NAME_CACHE_ENTRIES,
            ..NameCache::default()
        }
    }

    /// A cache that keeps nothing (every lookup allocates).
    pub fn disabled() -> Self {
        NameCache::default()
    }

    /// The namespace spelled `s` (validated on a miss).
    ///
    /// # Errors
    /// As [`Nspace::new`].
    pub fn nspace(&mut self, s: &str) -> crate::Result<Nspace> {
        if let Some(n) = self.nspaces.iter().find(|n| n.as_str() == s) {
            return Ok(n.clone());
        }
        let n = Nspace::new(s)?;
        remember(&mut self.nspaces, &mut self.next_ns, self.cap, &n);
        Ok(n)
    }

    /// The key spelled `s` (validated on a miss).
    ///
    /// # Errors
    /// As [`Key::new`].
    pub fn key(&mut self, s: &str) -> crate::Result<Key> {
        if let Some(k) = self.keys.iter().find(|k| k.as_str() == s) {
            return Ok(k.clone());
        }
        let k = Key::new(s)?;
        remember(&mut self.keys, &mut self.next_key, self.cap, &k);
        Ok(k)
    }
}

impl NameSource for NameCache {
    fn nspace(&mut self, s: &str) -> crate::Result<Nspace> {
        NameCache::nspace(self, s)
    }

    fn key(&mut self, s: &str) -> crate::Result<Key> {
        NameCache::key(self, s)
    }
}

fn remember<T: Clone>(v: &mut Vec<T>, next: &mut usize, cap: usize, x: &T) {
    if cap == 0 {
        return;
    }
    if v.len() < cap {
        v.push(x.clone());
    } else {
        v[*next % cap] = x.clone();
        *next = (*next + 1) % cap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_returns_the_same_name_and_a_full_cache_replaces_the_oldest() {
        let mut c = NameCache::new();
        let a = c.nspace("job").unwrap();
        assert_eq!(c.nspace("job").unwrap(), a);
        for i in 0..NAME_CACHE_ENTRIES + 3 {
            c.key(&format!("k{i}")).unwrap();
        }
        assert_eq!(c.keys.len(), NAME_CACHE_ENTRIES);
        assert!(c.keys.iter().all(|k| k.as_str() != "k0"));
        assert!(NameCache::disabled().nspace("job").is_ok());
        assert!(NameCache::disabled().keys.is_empty());
    }
}
