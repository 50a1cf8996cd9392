//! Thin `#[server]` functions: state from context, then domain, then a DTO.
