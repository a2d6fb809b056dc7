//! Codec (being written).
