//! How `pmix` prints values: one line each, arrays and infos expanded.

use pmix_core::{Info, Value};

/// A value as text.
pub fn value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Proc(p) => p.to_string(),
        Value::Status(s) => s.to_string(),
        Value::ProcInfo(pi) => {
            format!("{} pid {} {} on {}", pi.proc, pi.pid, pi.state, pi.hostname)
        }
        Value::DataArray(a) => {
            let items: Vec<String> = a.items().iter().map(value).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Info(i) => info(i),
        other => match other.to_i64() {
            Ok(n) => n.to_string(),
            Err(_) => format!("{other:?}"),
        },
    }
}

/// `key = value`.
pub fn info(i: &Info) -> String {
    format!("{} = {}", i.key, value(&i.value))
}
