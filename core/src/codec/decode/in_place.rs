//! Decoding a value into one that is already there, reusing the memory it
//! owns when the new value has the same shape (a data array's box and
//! element list, a string's or a byte object's buffer, a boxed info), and
//! taking namespaces and keys from a [`NameSource`] that can share them.
//! A receiver that decodes event after event into the same objects then
//! allocates nothing for a repeated shape (issue 18).
//!
//! The result always equals what [`Decoder::get_value`] returns for the
//! same bytes, whatever the slot held before; so are the accepted inputs.

use super::{bad, Decoder};
use crate::codec::MAX_DEPTH;
use crate::codes::{DataType, InfoFlags};
use crate::value::DataArray;
use crate::{Info, Key, Nspace, Proc, Rank, Result, Value};

/// Where in-place decoding takes the namespaces and keys it reads.
pub trait NameSource {
    /// The namespace spelled `s`.
    ///
    /// # Errors
    /// As [`Nspace::new`].
    fn nspace(&mut self, s: &str) -> Result<Nspace>;

    /// The key spelled `s`.
    ///
    /// # Errors
    /// As [`Key::new`].
    fn key(&mut self, s: &str) -> Result<Key>;
}

/// A [`NameSource`] that makes every name anew (one allocation each).
#[derive(Debug, Default, Clone, Copy)]
pub struct FreshNames;

impl NameSource for FreshNames {
    fn nspace(&mut self, s: &str) -> Result<Nspace> {
        Nspace::new(s)
    }

    fn key(&mut self, s: &str) -> Result<Key> {
        Key::new(s)
    }
}

impl Decoder<'_> {
    /// Reads a proc, its namespace from `names`.
    ///
    /// # Errors
    /// As [`Decoder::get_proc`].
    pub fn get_proc_named(&mut self, names: &mut impl NameSource) -> Result<Proc> {
        let ns = self.get_str()?;
        let nspace = names
            .nspace(ns)
            .map_err(|e| bad(format!("bad nspace: {e}")))?;
        Ok(Proc {
            nspace,
            rank: Rank(self.get_u32()?),
        })
    }

    /// Reads an info into `slot` (see the module documentation).
    ///
    /// # Errors
    /// As [`Decoder::get_info`]; `slot` then holds a partial info.
    pub fn get_info_into(&mut self, slot: &mut Info, names: &mut impl NameSource) -> Result<()> {
        let key = self.get_str()?;
        slot.key = names.key(key).map_err(|e| bad(format!("bad key: {e}")))?;
        slot.flags = InfoFlags(self.get_u32()?);
        self.get_value_into(&mut slot.value, names)
    }

    /// Reads a value into `slot` (see the module documentation).
    ///
    /// # Errors
    /// As [`Decoder::get_value`]; `slot` then holds a partial value.
    pub fn get_value_into(&mut self, slot: &mut Value, names: &mut impl NameSource) -> Result<()> {
        let t = DataType(self.get_u16()?);
        self.value_body_into(t, slot, names)
    }

    fn value_body_into(
        &mut self,
        t: DataType,
        slot: &mut Value,
        names: &mut impl NameSource,
    ) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(bad(format!("values nested deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        let r = self.value_body_into_inner(t, slot, names);
        self.depth -= 1;
        r
    }

    fn value_body_into_inner(
        &mut self,
        t: DataType,
        slot: &mut Value,
        names: &mut impl NameSource,
    ) -> Result<()> {
        use Value as V;
        match (t, &mut *slot) {
            (DataType::PROC, _) => *slot = V::Proc(self.get_proc_named(names)?),
            (DataType::PROC_NSPACE, _) => {
                let s = self.get_str()?;
                let ns = names
                    .nspace(s)
                    .map_err(|e| bad(format!("bad nspace: {e}")))?;
                *slot = V::Nspace(ns);
            }
            (DataType::STRING, V::String(s)) => {
                let new = self.get_str()?;
                s.clear();
                s.push_str(new);
            }
            (DataType::BYTE_OBJECT, V::ByteObject(b))
            | (DataType::COMPRESSED_STRING, V::CompressedString(b))
            | (DataType::COMPRESSED_BYTE_OBJECT, V::CompressedByteObject(b))
            | (DataType::REGEX, V::Regex(b)) => {
                let new = self.get_bytes()?;
                b.clear();
                b.extend_from_slice(new);
            }
            (DataType::DATA_ARRAY, V::DataArray(a)) => self.data_array_into(a, names)?,
            (DataType::DATA_ARRAY, _) => {
                let mut a = Box::new(DataArray::from_procs(Vec::new()));
                self.data_array_into(&mut a, names)?;
                *slot = V::DataArray(a);
            }
            (DataType::INFO, V::Info(i)) => self.get_info_into(i, names)?,
            (DataType::INFO, _) => {
                let key = self.get_str()?;
                let key = names.key(key).map_err(|e| bad(format!("bad key: {e}")))?;
                let flags = InfoFlags(self.get_u32()?);
                let mut value = V::Undef;
                self.get_value_into(&mut value, names)?;
                *slot = V::Info(Box::new(Info { key, value, flags }));
            }
            _ => *slot = self.get_value_body_inner(t)?,
        }
        Ok(())
    }

    /// As `get_data_array`, into `a`.
    fn data_array_into(&mut self, a: &mut DataArray, names: &mut impl NameSource) -> Result<()> {
        let elem = DataType(self.get_u16()?);
        if elem == DataType::DATA_ARRAY && self.depth + 1 >= MAX_DEPTH {
            return Err(bad("data arrays nested too deeply"));
        }
        let n = self.get_count("data array", 1)?;
        if elem == DataType::UNDEF {
            return Err(bad("a data array cannot have element type PMIX_UNDEF"));
        }
        a.refill(elem, n, |slot| {
            if elem == DataType::VALUE {
                // each element a whole value, nested one level deeper
                let t = DataType(self.get_u16()?);
                self.value_body_into(t, slot, names)
            } else {
                self.value_body_into(elem, slot, names)
            }
        })
        .map_err(|e| match e.status() {
            crate::Status::ERR_TYPE_MISMATCH => bad(e.to_string()),
            _ => e,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::{encode_value, Encoder};
    use crate::value::{App, Envar, Query};
    use crate::{Proc, Status};

    fn p(r: u32) -> Proc {
        Proc::new("job", Rank(r)).unwrap()
    }

    /// Values of many shapes, nested ones included.
    fn samples() -> Vec<Value> {
        let infos = DataArray::from_infos(vec![
            Info::new("a", p(1)).unwrap(),
            Info::new("b", "text").unwrap().required(),
        ]);
        let nested = DataArray::new(
            DataType::DATA_ARRAY,
            vec![Value::from(DataArray::from_procs(vec![p(3)]))],
        )
        .unwrap();
        vec![
            Value::Undef,
            Value::Uint64(9),
            Value::from("a string"),
            Value::ByteObject(vec![1, 2, 3]),
            Value::Regex(vec![4]),
            Value::Proc(p(7)),
            Value::Nspace(Nspace::new("ns").unwrap()),
            Value::from(DataArray::from_procs(vec![p(0)])),
            Value::from(DataArray::from_procs(vec![p(0), p(1), p(2)])),
            Value::from(DataArray::from_procs(Vec::new())),
            Value::from(infos),
            Value::from(nested),
            Value::from(
                DataArray::new(DataType::VALUE, vec![Value::Uint8(1), Value::from("v")]).unwrap(),
            ),
            Value::Envar(Envar {
                envar: "E".into(),
                value: "1".into(),
                separator: b':',
            }),
            Value::App(Box::new(App {
                cmd: "x".into(),
                ..App::default()
            })),
            Value::Query(Box::new(Query {
                keys: vec!["k".into()],
                qualifiers: vec![Info::new("q", 1u32).unwrap()],
            })),
        ]
    }

    #[test]
    fn decoding_into_any_previous_value_equals_a_fresh_decode() {
        for before in samples() {
            for v in samples() {
                let bytes = encode_value(&v);
                let mut slot = before.clone();
                let mut d = Decoder::new(&bytes);
                d.get_value_into(&mut slot, &mut FreshNames).unwrap();
                d.expect_end().unwrap();
                assert_eq!(slot, Decoder::new(&bytes).get_value().unwrap());
                assert_eq!(slot, v, "decoding {v:?} into {before:?}");
            }
        }
    }

    #[test]
    fn a_same_shaped_array_is_decoded_into_its_memory() {
        let mut slot = Value::from(DataArray::from_procs(vec![p(0), p(1)]));
        let v = Value::from(DataArray::from_procs(vec![p(5)]));
        let bytes = encode_value(&v);
        Decoder::new(&bytes)
            .get_value_into(&mut slot, &mut FreshNames)
            .unwrap();
        assert_eq!(slot, v);
        // the list of 2 was reused (a fresh decode has room for 1)
        let room = |v: &Value| v.as_data_array().unwrap().capacity();
        assert_eq!(room(&slot), 2);
        assert_eq!(room(&Decoder::new(&bytes).get_value().unwrap()), 1);
    }

    #[test]
    fn bad_input_fails_as_a_fresh_decode_fails() {
        let mut inputs: Vec<Vec<u8>> = Vec::new();
        for v in samples() {
            let b = encode_value(&v);
            inputs.extend((0..b.len()).map(|cut| b[..cut].to_vec()));
        }
        let mut e = Encoder::new();
        e.put_u16(DataType::DATA_ARRAY.0);
        e.put_u16(DataType::UNDEF.0);
        e.put_u32(1);
        e.put_u8(0);
        inputs.push(e.finish());
        let mut e = Encoder::new();
        for _ in 0..100 {
            e.put_u16(DataType::DATA_ARRAY.0);
            e.put_u16(DataType::DATA_ARRAY.0);
            e.put_u32(1);
        }
        inputs.push(e.finish());
        let mut e = Encoder::new();
        e.put_u16(DataType::PROC.0);
        e.put_str(&"n".repeat(300));
        e.put_u32(0);
        inputs.push(e.finish());
        for bytes in inputs {
            let fresh = Decoder::new(&bytes).get_value();
            for before in samples() {
                let mut slot = before;
                let r = Decoder::new(&bytes).get_value_into(&mut slot, &mut FreshNames);
                match (&fresh, r) {
                    (Ok(_), Ok(())) => {}
                    (Err(a), Err(b)) => assert_eq!(a.status(), b.status(), "{bytes:?}: {a} / {b}"),
                    (a, b) => panic!("{bytes:?}: fresh {a:?}, in place {b:?}"),
                }
            }
        }
        assert_eq!(
            Decoder::new(&[0xFF, 0x7F])
                .get_value_into(&mut Value::Undef, &mut FreshNames)
                .unwrap_err()
                .status(),
            Status::ERR_UNPACK_FAILURE
        );
    }
}
