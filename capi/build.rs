//! Gives the cdylib the SONAME of OpenPMIx's library, so programs linked
//! against `libpmix.so.2` load this one from `LD_LIBRARY_PATH`, and marks
//! it `NODELETE`: the library runs threads of its own (server connections,
//! progress, callbacks), so it must stay mapped when the component that
//! loaded it is `dlclose`d (Open MPI closes its PMIx component at
//! finalize).

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpmix.so.2");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    println!("cargo:rerun-if-changed=build.rs");
}
