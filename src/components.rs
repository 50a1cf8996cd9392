//! Presentational components: data arrives as props; they never call the server.
