//! What the pages read from the store: the whole matrix, one cell's explanation, one
//! DaemonSet's rollout detail, one node's row.

use super::*;

impl ClusterState {
    /// The whole matrix, labelled with `version` (the feed's version at this state).
    pub fn snapshot(&self, version: u64) -> MatrixSnapshot {
        let keys: Vec<&String> = self.columns.keys().collect();
        let nodes = self
            .nodes
            .values()
            .map(|node| {
                let row = self.cells.get(&node.name);
                let states = keys
                    .iter()
                    .map(|k| {
                        row.and_then(|r| r.get(*k))
                            .map_or(CellState::Excluded, |c| c.state)
                    })
                    .collect();
                cells::node_row(node, states)
            })
            .collect();
        MatrixSnapshot {
            version,
            cluster: self.cluster.clone(),
            daemonsets: self.columns.values().cloned().collect(),
            nodes,
            health: self.health(),
        }
    }

    /// Why one cell is what it is; `now` in unix seconds (pod ages, availability).
    pub fn explain(
        &self,
        node: &str,
        ds_key: &str,
        now: i64,
    ) -> Result<CellExplanation, crate::cluster::LookupError> {
        let node_facts = self
            .nodes
            .get(node)
            .ok_or_else(|| crate::cluster::LookupError::NodeNotFound(node.to_string()))?;
        let ds = self
            .daemonsets
            .get(ds_key)
            .ok_or_else(|| crate::cluster::LookupError::DaemonSetNotFound(ds_key.to_string()))?;
        let pods = self.pods.in_cell(&ds.uid, node);
        let mut explanation = cells::explain(node_facts, ds, &pods, now, self.grace);
        // §l: a missing pod the API server refuses to create, with the nodes it keeps bare.
        if let Some(refused) = self.columns.get(ds_key).and_then(|c| c.refused.as_ref()) {
            let missing: Vec<&str> = self
                .nodes
                .keys()
                .filter(|n| {
                    self.cells
                        .get(*n)
                        .and_then(|r| r.get(ds_key))
                        .is_some_and(|c| c.state == CellState::Missing)
                })
                .map(String::as_str)
                .collect();
            crate::domain::coverage::attribute_refusal(
                &mut explanation,
                refused,
                &ds.namespace,
                &ds.name,
                &missing,
            );
        }
        explanation.pending = self.pending_explanations(node_facts, ds).into_iter().next();
        Ok(explanation)
    }

    /// For each DaemonSet that should not run on `node`, the rule that keeps it off (the node
    /// page's rows, §a.2); DaemonSets that should run are left out.
    pub fn deciding_rules(
        &self,
        node: &str,
    ) -> Result<Vec<(String, String)>, crate::cluster::LookupError> {
        let node_facts = self
            .nodes
            .get(node)
            .ok_or_else(|| crate::cluster::LookupError::NodeNotFound(node.to_string()))?;
        Ok(self
            .daemonsets
            .iter()
            .filter_map(|(key, ds)| {
                let placement = crate::domain::scheduling::placement(node_facts, &ds.template);
                crate::domain::scheduling::deciding_rule(&placement).map(|line| (key.clone(), line))
            })
            .collect())
    }

    /// A DaemonSet's rollout page: its column and every node's cell with its pods.
    pub fn detail(
        &self,
        ds_key: &str,
        version: u64,
        now: i64,
    ) -> Result<DaemonSetDetail, crate::cluster::LookupError> {
        let not_found = || crate::cluster::LookupError::DaemonSetNotFound(ds_key.to_string());
        let ds = self.daemonsets.get(ds_key).ok_or_else(not_found)?;
        let column = self.columns.get(ds_key).cloned().ok_or_else(not_found)?;
        let nodes = self
            .nodes
            .keys()
            .filter_map(|name| {
                let cell = self.cells.get(name)?.get(ds_key)?;
                Some(NodeProgress {
                    node: name.clone(),
                    state: cell.state,
                    should_run: cell.should_run,
                    pods: self
                        .pods
                        .in_cell(&ds.uid, name)
                        .into_iter()
                        .map(|p| cells::pod_summary(ds, p, now))
                        .collect(),
                })
            })
            .collect();
        Ok(DaemonSetDetail {
            version,
            column,
            current_revision: ds.current_revision_hash.clone(),
            generation: ds.generation,
            observed_generation: ds.status.as_ref().map(|s| s.observed_generation),
            nodes,
            tolerations: crate::domain::view::effective_tolerations(&ds.template),
        })
    }

    /// The facts a what-if preview needs (`domain::whatif`): the nodes `keep_node` accepts,
    /// the DaemonSet `only` (or every one), and which of their cells hold a pod now.
    pub fn whatif_facts(
        &self,
        keep_node: impl Fn(&NodeFacts) -> bool,
        only: Option<&str>,
    ) -> Result<crate::domain::whatif::WhatIfFacts, crate::cluster::LookupError> {
        if let Some(key) = only {
            if !self.daemonsets.contains_key(key) {
                return Err(crate::cluster::LookupError::DaemonSetNotFound(
                    key.to_string(),
                ));
            }
        }
        let daemonsets: Vec<(String, crate::domain::TemplateFacts)> = self
            .daemonsets
            .iter()
            .filter(|(key, _)| only.is_none_or(|k| k == key.as_str()))
            .map(|(key, ds)| (key.clone(), ds.template.clone()))
            .collect();
        let nodes: Vec<NodeFacts> = self
            .nodes
            .values()
            .filter(|n| keep_node(n))
            .cloned()
            .collect();
        let mut pods: Vec<(String, String)> = nodes
            .iter()
            .flat_map(|n| {
                daemonsets.iter().filter_map(|(key, _)| {
                    self.cell(&n.name, key)
                        .filter(|s| s.has_pod())
                        .map(|_| (n.name.clone(), key.clone()))
                })
            })
            .collect();
        pods.sort_unstable();
        Ok(crate::domain::whatif::WhatIfFacts {
            nodes,
            daemonsets,
            pods,
            rooms: Vec::new(),
        })
    }

    pub(super) fn row_of(&self, name: &str) -> crate::domain::view::NodeRow {
        let row = self.cells.get(name);
        let states = self
            .columns
            .keys()
            .map(|k| {
                row.and_then(|r| r.get(k))
                    .map_or(CellState::Excluded, |c| c.state)
            })
            .collect();
        match self.nodes.get(name) {
            Some(node) => cells::node_row(node, states),
            None => cells::node_row(
                &NodeFacts {
                    name: name.to_string(),
                    ..NodeFacts::default()
                },
                states,
            ),
        }
    }
}
