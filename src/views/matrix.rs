//! The coverage matrix's views: the query in the URL, the window it cuts, and the patches
//! that keep a browser's window current.

pub mod patch;
pub mod pool_tax;
pub mod query;
pub mod window;
