//! Attribute keys (being written).
