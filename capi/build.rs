//! Gives the cdylib the SONAME of OpenPMIx's library, so programs linked
//! against `libpmix.so.2` load this one from `LD_LIBRARY_PATH`.

fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libpmix.so.2");
    println!("cargo:rerun-if-changed=build.rs");
}
