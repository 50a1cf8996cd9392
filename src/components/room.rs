//! A node's room as the scheduler sees it (§j): why a daemon pod waits for the scheduler (its
//! words, then the arithmetic) and the DaemonSet tax.
//!
//! Why here: the explanation panel, the node page and the DaemonSet page show the same tables;
//! the numbers and the fixes come computed and proven from the domain
//! (`coverage::pending`, `resources::tax`); this file only lays them out.

use super::fixes::fix_item;
use crate::domain::coverage::pending::{format_amount, PendingExplanation};
use crate::domain::resources::fit::Amounts;
use crate::domain::resources::tax::{share_percent, NodeTax};
use leptos::prelude::*;

/// The resources a table shows: those any of the lists names, cpu and memory first.
fn resources(lists: &[&Amounts]) -> Vec<String> {
    let mut names: Vec<String> = vec!["cpu".into(), "memory".into()];
    for list in lists {
        for (name, _) in list.iter() {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_owned());
            }
        }
    }
    names
}

fn amount(resource: &str, value: i64) -> String {
    format_amount(resource, value)
}

/// Why the scheduler does not bind a pending daemon pod (§j.4).
#[component]
pub fn PendingView(pending: PendingExplanation) -> impl IntoView {
    let p = pending;
    let scheduler = p.scheduler.clone().map(|s| {
        view! {
            <p class="scheduler-words">"The scheduler says ("<code>"PodScheduled=False"</code>"): "</p>
            <blockquote data-testid="scheduler-message">
                <strong>{s.reason}</strong>": "{s.message}
            </blockquote>
        }
    });
    let rows = resources(&[&p.allocatable, &p.requested, &p.asked])
        .into_iter()
        .filter(|r| r != "pods")
        .map(|r| {
            let alloc = p.allocatable.get(&r);
            let used = p.requested.get(&r);
            let asked = p.asked.get(&r);
            let short = p.shortfalls.iter().find(|s| s.resource == r);
            let short_text = short.map_or_else(|| "—".to_string(), |s| amount(&r, s.short_by()));
            view! {
                <tr data-resource=r.clone() data-short=short.is_some().to_string()>
                    <th scope="row">{r.clone()}</th>
                    <td class="num">{amount(&r, alloc)}</td>
                    <td class="num">{amount(&r, used)}</td>
                    <td class="num">{amount(&r, alloc.saturating_sub(used).max(0))}</td>
                    <td class="num">{amount(&r, asked)}</td>
                    <td class="num" data-testid="short-by">{short_text}</td>
                </tr>
            }
        })
        .collect_view();
    let pods_line = format!(
        "{} pods bound of {} allowed.",
        p.bound_pods,
        p.allocatable.get("pods")
    );
    let roomy = (!p.nodes_with_room.is_empty()).then(|| {
        let pool = p
            .pool
            .clone()
            .map(|(k, v)| format!(" ({k}={v})"))
            .unwrap_or_default();
        let names = p
            .nodes_with_room
            .iter()
            .map(|n| view! { <li><a href=crate::links::node(n)>{n.clone()}</a></li> })
            .collect_view();
        view! {
            <p>"Nodes of the same pool"{pool}" where it would fit now:"</p>
            <ul class="roomy-nodes" data-testid="nodes-with-room">{names}</ul>
        }
    });
    let fixes = p.fixes.into_iter().map(fix_item).collect_view();
    view! {
        <section class="pending" aria-label="Why the scheduler does not bind it" data-testid="pending" data-pod=p.pod.clone()>
            <h3>"Why the scheduler does not bind "<code>{p.pod.clone()}</code></h3>
            {scheduler}
            <p class="pending-sentence" data-testid="pending-sentence">{p.sentence}</p>
            <table class="room">
                <thead>
                    <tr><th>"resource"</th><th>"allocatable"</th><th title="what the pods bound to the node request">"bound pods ask"</th><th>"left"</th><th>"this pod asks"</th><th>"short"</th></tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="muted">{pods_line}</p>
            {roomy}
            <ul class="fixes">{fixes}</ul>
        </section>
    }
}

/// A share as the tables print it (`—` when the node has none of the resource).
fn share(part: i64, whole: i64) -> String {
    share_percent(part, whole).map_or_else(|| "—".to_string(), |p| format!("{p}%"))
}

/// The DaemonSet tax on one node (§j.5): each DaemonSet that should run there, the sum, and
/// its share of allocatable.
#[component]
pub fn TaxView(tax: NodeTax) -> impl IntoView {
    let mut lists: Vec<&Amounts> = vec![&tax.total];
    lists.extend(tax.daemonsets.iter().map(|(_, a)| a));
    let names: Vec<String> = resources(&lists)
        .into_iter()
        .filter(|r| tax.total.get(r) != 0 || tax.allocatable.get(r) != 0)
        .collect();
    let head = names
        .iter()
        .map(|r| view! { <th scope="col">{r.clone()}</th> })
        .collect_view();
    let rows = tax
        .daemonsets
        .iter()
        .map(|(key, req)| {
            let cells = names
                .iter()
                .map(|r| view! { <td class="num" data-resource=r.clone()>{amount(r, req.get(r))}</td> })
                .collect_view();
            view! { <tr data-daemonset=key.clone()><th scope="row"><a href=crate::links::daemonset(key)>{key.clone()}</a></th>{cells}</tr> }
        })
        .collect_view();
    let total = names
        .iter()
        .map(|r| view! { <td class="num" data-testid="tax-total" data-resource=r.clone() data-value=tax.total.get(r).to_string()>{amount(r, tax.total.get(r))}</td> })
        .collect_view();
    let alloc = names
        .iter()
        .map(|r| view! { <td class="num" data-resource=r.clone()>{amount(r, tax.allocatable.get(r))}</td> })
        .collect_view();
    let shares = names
        .iter()
        .map(|r| view! { <td class="num" data-testid="tax-share" data-resource=r.clone()>{share(tax.total.get(r), tax.allocatable.get(r))}</td> })
        .collect_view();
    view! {
        <section class="tax" aria-label="DaemonSet tax" data-testid="tax">
            <h2>"DaemonSet tax"</h2>
            <p class="muted">"What the DaemonSets that should run on this node request (by the placement rules, whether or not their pods run), as a share of the node's allocatable."</p>
            <table class="room">
                <thead><tr><th>"DaemonSet"</th>{head}</tr></thead>
                <tbody>{rows}</tbody>
                <tfoot>
                    <tr><th scope="row">"total"</th>{total}</tr>
                    <tr><th scope="row">"allocatable"</th>{alloc}</tr>
                    <tr><th scope="row">"share"</th>{shares}</tr>
                </tfoot>
            </table>
        </section>
    }
}
