//! How many CPUs the node has online: what decides whether a fence's
//! participants can all spin at once.

/// The node's online CPUs (`/sys/devices/system/cpu/online`), which is
/// what decides whether fence participants can all run at once: a rank
/// bound to one core (Open MPI binds by default) still has peers running
/// on the others, so this process's own affinity mask is the wrong
/// measure. Falls back to that mask when the file cannot be read.
pub(crate) fn online_cpus() -> usize {
    let fallback = || std::thread::available_parallelism().map_or(1, |n| n.get());
    std::fs::read_to_string("/sys/devices/system/cpu/online")
        .ok()
        .and_then(|s| count_cpu_list(s.trim()))
        .unwrap_or_else(fallback)
}

/// The number of CPUs in a kernel CPU list such as `0-3,6,8-9`.
fn count_cpu_list(list: &str) -> Option<usize> {
    let mut n = 0usize;
    for part in list.split(',').filter(|p| !p.is_empty()) {
        n += match part.split_once('-') {
            Some((a, b)) => {
                b.parse::<usize>()
                    .ok()?
                    .checked_sub(a.parse::<usize>().ok()?)?
                    + 1
            }
            None => {
                part.parse::<usize>().ok()?;
                1
            }
        };
    }
    (n > 0).then_some(n)
}

#[cfg(test)]
mod tests {
    use super::count_cpu_list;

    #[test]
    fn kernel_cpu_lists_are_counted() {
        assert_eq!(count_cpu_list("0-1"), Some(2));
        assert_eq!(count_cpu_list("0-3,6,8-9"), Some(7));
        assert_eq!(count_cpu_list("5"), Some(1));
        assert_eq!(count_cpu_list(""), None);
        assert_eq!(count_cpu_list("3-1"), None);
        assert_eq!(count_cpu_list("x"), None);
    }
}
