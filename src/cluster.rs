//! The only code that talks to an API server: watchers, the compact store, conversion.
pub mod convert;
