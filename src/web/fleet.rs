//! `/api/fleet`: the fleet as JSON (`domain::fleet::FleetSummary`), for the fleet page.
//!
//! Why a JSON route: the fleet page reads the same type whether the fleet comes from the
//! clusters this process watches or from Prometheus (`serve --fleet-prometheus`). A fleet that
//! cannot be read answers 502 with the error's words (also logged), and touches nothing else.

use crate::web::AppState;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

/// The fleet now: read from Prometheus with `--fleet-prometheus` (502 with `{"error": ...}`
/// when it cannot be read), else put together from the clusters this process watches, the
/// same summary the fleet page shows. Why both here: a tool (or a test) compares the two
/// sources through one route.
pub async fn fleet(State(state): State<AppState>) -> Response {
    let Some(source) = state.fleet.as_ref() else {
        let parts = state
            .clusters
            .iter()
            .map(|c| c.windows.fleet_part(&c.name))
            .collect();
        return Json(crate::domain::fleet::assemble(parts)).into_response();
    };
    match source.read().await {
        Ok(summary) => Json(summary).into_response(),
        Err(err) => (
            StatusCode::BAD_GATEWAY,
            Json(serde_json::json!({ "error": err.to_string() })),
        )
            .into_response(),
    }
}
