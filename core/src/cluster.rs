//! Multi-cluster namespace names (RFC0003): a process on another cluster is
//! named `cluster:nspace`, the cluster id (`PMIX_CLUSTER_ID`) prepended to
//! its namespace with a colon (the RFC's `PMIX_MULTICLUSTER_NSPACE_CONSTRUCT`
//! and its parse).

use crate::{Error, Nspace, Result};

/// `cluster:nspace`.
///
/// # Errors
/// `PMIX_ERR_BAD_PARAM` when `cluster` is empty or holds a colon, or the
/// result is not a valid namespace (too long).
pub fn multicluster_nspace(cluster: &str, nspace: &str) -> Result<Nspace> {
    if cluster.is_empty() || cluster.contains(':') {
        return Err(Error::bad_param(format!(
            "cluster id {cluster:?} must be non-empty and hold no ':'"
        )));
    }
    Nspace::new(format!("{cluster}:{nspace}"))
}

/// Splits `cluster:nspace` into its cluster id and namespace; a name
/// without a colon has no cluster id.
pub fn split_multicluster(name: &str) -> (Option<&str>, &str) {
    match name.split_once(':') {
        Some((c, ns)) if !c.is_empty() => (Some(c), ns),
        _ => (None, name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_and_parse() {
        let n = multicluster_nspace("east", "job-1").unwrap();
        assert_eq!(n.as_str(), "east:job-1");
        assert_eq!(split_multicluster(n.as_str()), (Some("east"), "job-1"));
        assert_eq!(split_multicluster("job-1"), (None, "job-1"));
        assert!(multicluster_nspace("", "x").is_err());
        assert!(multicluster_nspace("a:b", "x").is_err());
        assert!(multicluster_nspace("c", &"x".repeat(300)).is_err());
    }
}
