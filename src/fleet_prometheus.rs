//! The fleet read from Prometheus (`serve --fleet-prometheus URL`): the instant queries of
//! `domain::fleet::from_metrics` sent side by side, their samples turned into the same
//! `FleetSummary` the in-process fleet gives, each cluster linked to its own daemonscope.
//!
//! Why a room of its own: it holds no watch and no cluster state, only a query client; past
//! a handful of clusters, the time-series store the fleet's users already run is the fleet's
//! store (`docs/architecture.md`). A failure is one typed error naming the query; nothing
//! else in the server depends on it.

pub mod client;

use crate::domain::fleet::from_metrics::{fleet_from_metrics, ClusterLabel, FleetQuery};
use crate::domain::fleet::{FleetSummary, LinkTemplate};
use client::{PromClient, QueryError};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A fleet that could not be read: which query failed, and why.
#[derive(Debug, thiserror::Error)]
#[error("reading the fleet from Prometheus: the {query} query ({promql}) failed: {source}")]
pub struct FleetError {
    pub query: &'static str,
    pub promql: String,
    #[source]
    pub source: QueryError,
}

/// Where the fleet comes from and how its clusters are named and linked.
#[derive(Clone, Debug)]
pub struct FleetSource {
    client: PromClient,
    label: ClusterLabel,
    links: Option<LinkTemplate>,
}

impl FleetSource {
    /// A source over `client`, grouping by `label`, linking clusters with `links`.
    pub fn new(client: PromClient, label: ClusterLabel, links: Option<LinkTemplate>) -> Self {
        Self {
            client,
            label,
            links,
        }
    }

    /// The Prometheus it reads, for logs and the page.
    pub fn prometheus(&self) -> &str {
        self.client.base()
    }

    /// The fleet now: every query at once (one round trip of wall time), then the pure
    /// summary. Any failed query fails the whole read, naming itself; it is logged here.
    pub async fn read(&self) -> Result<FleetSummary, FleetError> {
        let started = Instant::now();
        let queries = FleetQuery::ALL.map(|q| (q, q.promql(&self.label)));
        let answers = futures::future::join_all(
            queries
                .iter()
                .map(|(query, promql)| async move { (*query, self.client.query(promql).await) }),
        )
        .await;
        let mut samples = BTreeMap::new();
        for (query, answer) in answers {
            match answer {
                Ok(found) => {
                    samples.insert(query, found);
                }
                Err(source) => {
                    let err = FleetError {
                        query: query.name(),
                        promql: query.promql(&self.label),
                        source,
                    };
                    tracing::warn!(prometheus = %self.client.base(), error = %err, "fleet not read");
                    return Err(err);
                }
            }
        }
        let mut summary = fleet_from_metrics(&self.label, &samples);
        if let Some(links) = &self.links {
            for cluster in &mut summary.clusters {
                cluster.link = Some(links.link(&cluster.name));
            }
        }
        tracing::debug!(
            clusters = summary.clusters.len(),
            took_ms = started.elapsed().as_millis() as u64,
            "fleet read from Prometheus"
        );
        Ok(summary)
    }
}

/// The default wait for one query (`--fleet-timeout`).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
