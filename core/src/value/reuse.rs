//! Overwriting a value, an info or a list of infos with another one while
//! keeping the heap memory the old contents own when the new ones have the
//! same shape (issue 18: an event path that reuses one event object
//! allocates nothing for a repeated data array, string or byte object).
//!
//! The result always equals a clone of the source; only where the memory
//! comes from differs.

use super::{DataArray, Value};
use crate::codes::DataType;
use crate::info::Info;
use crate::status::{Error, Result, Status};

impl Value {
    /// Makes `self` equal to `src`, reusing the memory `self` owns where
    /// the two have the same variant (a data array's box and element list,
    /// recursively; a string's or a byte object's buffer; a boxed info).
    pub fn assign_from(&mut self, src: &Value) {
        use Value as V;
        match (self, src) {
            (V::DataArray(d), V::DataArray(s)) => d.assign_from(s),
            (V::String(d), V::String(s)) => d.clone_from(s),
            (V::ByteObject(d), V::ByteObject(s))
            | (V::CompressedString(d), V::CompressedString(s))
            | (V::CompressedByteObject(d), V::CompressedByteObject(s))
            | (V::Regex(d), V::Regex(s)) => d.clone_from(s),
            (V::Info(d), V::Info(s)) => d.assign_from(s),
            (d, s) => *d = s.clone(),
        }
    }
}

impl Info {
    /// Makes `self` equal to `src`, its value through
    /// [`Value::assign_from`].
    pub fn assign_from(&mut self, src: &Info) {
        self.key.clone_from(&src.key);
        self.flags = src.flags;
        self.value.assign_from(&src.value);
    }
}

/// Makes `dst` equal to `src`: the entries they both have are assigned in
/// place ([`Info::assign_from`]), the others appended or dropped.
pub fn assign_infos(dst: &mut Vec<Info>, src: &[Info]) {
    dst.truncate(src.len());
    let kept = dst.len();
    for (d, s) in dst.iter_mut().zip(src) {
        d.assign_from(s);
    }
    dst.extend_from_slice(&src[kept..]);
}

impl DataArray {
    /// Makes `self` equal to `src`, reusing its element list and the
    /// elements' memory.
    pub fn assign_from(&mut self, src: &DataArray) {
        self.elem_type = src.elem_type;
        self.items.truncate(src.items.len());
        let kept = self.items.len();
        for (d, s) in self.items.iter_mut().zip(&src.items) {
            d.assign_from(s);
        }
        self.items.extend_from_slice(&src.items[kept..]);
    }

    /// Refills the array in place with `n` elements of `elem_type`, each
    /// written by `fill` into the slot at its index (which holds the
    /// element the array had there before, or `PMIX_UNDEF`), so that the
    /// elements' memory is reused; the element list keeps its capacity.
    /// The element types are checked as [`DataArray::new`] does.
    ///
    /// # Errors
    /// As [`DataArray::new`], and `fill`'s. The array is then empty (of
    /// element type `elem_type` when that is valid).
    pub fn refill(
        &mut self,
        elem_type: DataType,
        n: usize,
        mut fill: impl FnMut(&mut Value) -> Result<()>,
    ) -> Result<()> {
        if elem_type == DataType::UNDEF {
            self.items.clear();
            return Err(Error::bad_param(
                "a data array cannot have element type PMIX_UNDEF",
            ));
        }
        self.elem_type = elem_type;
        self.items.truncate(n);
        // room for `n` exactly when there is less (the caller checked `n`
        // against its input)
        self.items.reserve_exact(n - self.items.len());
        let r = (0..n).try_for_each(|i| {
            if i == self.items.len() {
                self.items.push(Value::Undef);
            }
            let slot = &mut self.items[i];
            fill(slot)?;
            if elem_type != DataType::VALUE && slot.data_type() != elem_type {
                return Err(Error::with_context(
                    Status::ERR_TYPE_MISMATCH,
                    format!("data array of {elem_type} holds a {}", slot.data_type()),
                ));
            }
            Ok(())
        });
        if r.is_err() {
            self.items.clear();
        }
        r
    }
}

#[cfg(test)]
impl DataArray {
    /// Room of the element list: what tests of reuse look at (a fresh
    /// list of `n` elements has room for `n`, a reused one keeps more).
    pub(crate) fn capacity(&self) -> usize {
        self.items.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Proc, Rank};

    fn procs(n: u32) -> Value {
        let p = (0..n).map(|r| Proc::new("job", Rank(r)).unwrap()).collect();
        Value::from(DataArray::from_procs(p))
    }

    fn room(v: &Value) -> usize {
        v.as_data_array().unwrap().capacity()
    }

    #[test]
    fn assigning_a_same_shaped_array_keeps_its_memory_and_equals_the_source() {
        let mut d = procs(3);
        let src = procs(2);
        d.assign_from(&src);
        assert_eq!(d, src);
        // the list of 3 was reused (a clone has room for 2)
        assert_eq!((room(&d), room(&src.clone())), (3, 2));
        // any other shape is replaced, still equal
        for src in [
            Value::Uint64(7),
            Value::from("text"),
            procs(5),
            Value::from(DataArray::from_infos(vec![Info::new("k", 1u8).unwrap()])),
        ] {
            d.assign_from(&src);
            assert_eq!(d, src);
        }
    }

    #[test]
    fn assign_infos_equals_a_clone_for_every_length() {
        let a = [
            Info::new("a", procs(1)).unwrap(),
            Info::new("b", 2u32).unwrap().required(),
            Info::new("c", "s").unwrap(),
        ];
        let b = [Info::new("x", Value::Bool(true)).unwrap()];
        let mut d = Vec::new();
        for src in [&a[..], &b[..], &a[..], &[][..], &a[1..]] {
            assign_infos(&mut d, src);
            assert_eq!(d, src);
        }
    }

    #[test]
    fn refill_checks_types_and_leaves_an_empty_array_on_error() {
        let Value::DataArray(mut a) = procs(2) else {
            unreachable!()
        };
        let e = a
            .refill(DataType::PROC, 2, |v| {
                *v = Value::Uint8(1);
                Ok(())
            })
            .unwrap_err();
        assert_eq!(e.status(), Status::ERR_TYPE_MISMATCH);
        assert!(a.is_empty());
        assert!(a.refill(DataType::UNDEF, 0, |_| Ok(())).is_err());
        a.refill(DataType::VALUE, 2, |v| {
            *v = Value::Uint8(1);
            Ok(())
        })
        .unwrap();
        let want = DataArray::new(DataType::VALUE, vec![Value::Uint8(1); 2]).unwrap();
        assert_eq!(*a, want);
    }
}
