//! CONTRACT STUB (to be replaced): what the API server would default and reject (§i).
