//! The what-if section of the node and DaemonSet pages and the matrix: a form that adds kubectl-like edits to
//! the URL, and the preview of what the controllers would do, clearly marked as a preview.
//!
//! Why a page module: it owns a query (the edits) and a server read (the facts), which pages
//! do and components do not. The preview itself is `domain::whatif`, computed from those facts
//! wherever this runs: on the server for the first render of a shared URL, in the browser in a
//! lazily loaded module ([`preview`]) once the URL's edits change there. Nothing is ever
//! written to the cluster.

mod preview;

use crate::domain::whatif::{
    decode, encode, parse_edits, to_query, EditError, EditScope, Edits, Outcome, PreviewDigest,
};
use crate::server_fns::DashboardError;
use leptos::either::{Either, EitherOf3};
use leptos::prelude::*;
use leptos_router::hooks::use_query_map;
use preview::{lazy_preview, FactsSlot, WhatIfPreview};
use std::collections::HashMap;

/// What a preview covers: the page it sits on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhatIfTarget {
    /// A node page: this node, every DaemonSet.
    Node(String),
    /// A DaemonSet page (`namespace/name`): every node, this DaemonSet.
    DaemonSet(String),
    /// The matrix: the nodes its label selector matches (every node when empty), every
    /// DaemonSet; node edits apply to each of those nodes (the "gpu pool" question).
    Matrix(String),
}

impl WhatIfTarget {
    fn scope(&self) -> EditScope {
        match self {
            WhatIfTarget::Node(_) | WhatIfTarget::Matrix(_) => EditScope::Node,
            WhatIfTarget::DaemonSet(_) => EditScope::DaemonSet,
        }
    }

    /// The page's own path: the form's action and the reset link.
    fn path(&self) -> String {
        match self {
            WhatIfTarget::Node(name) => crate::links::node(name),
            WhatIfTarget::DaemonSet(key) => crate::links::daemonset(key),
            WhatIfTarget::Matrix(selector) if selector.is_empty() => "/".to_string(),
            WhatIfTarget::Matrix(selector) => {
                crate::links::matrix_with(&format!("selector={}", encode(selector)))
            }
        }
    }

    /// Query parameters of the page that the edits must keep (the matrix's selector).
    fn carried(&self) -> Vec<(String, String)> {
        match self {
            WhatIfTarget::Matrix(selector) if !selector.is_empty() => {
                vec![("selector".to_string(), selector.clone())]
            }
            _ => Vec::new(),
        }
    }
}

/// The edits without the `i`-th one (the chip's ×).
fn without(edits: &Edits, i: usize) -> Edits {
    let mut out = edits.clone();
    if i < out.node.len() {
        out.node.remove(i);
    } else if i - out.node.len() < out.template.len() {
        out.template.remove(i - out.node.len());
    }
    out
}

/// `path` with `query` appended (`path` may carry a query already).
fn join(path: &str, query: &str) -> String {
    match (query.is_empty(), path.contains('?')) {
        (true, _) => path.to_string(),
        (false, true) => format!("{path}&{query}"),
        (false, false) => format!("{path}?{query}"),
    }
}

fn href(path: &str, edits: &Edits) -> String {
    join(path, &to_query(edits))
}

/// A page's what-if state: the edits its URL asks for and their preview (computed only while
/// there are edits).
#[derive(Clone, Copy)]
pub struct WhatIf {
    /// The URL's edits, or why they cannot be read.
    pub parsed: Memo<Result<Edits, Vec<EditError>>>,
    /// The preview of the edits; `None` while there is nothing to preview.
    pub preview: Resource<Result<Option<PreviewDigest>, DashboardError>>,
}

impl WhatIf {
    /// The preview's outcome per changed `(node, namespace/name)` cell, once it is in: the
    /// matrix marks its cells with it.
    pub fn marks(self) -> Memo<HashMap<(String, String), Outcome>> {
        Memo::new(move |_| match self.preview.get() {
            Some(Ok(Some(d))) => d
                .changed
                .into_iter()
                .map(|c| ((c.node, c.daemonset), c.outcome))
                .collect(),
            _ => HashMap::new(),
        })
    }
}

/// The what-if cell marks the matrix table reads from context.
#[derive(Clone, Copy)]
pub struct WhatIfMarks(pub Memo<HashMap<(String, String), Outcome>>);

/// Reads the URL's edits for `target` and previews them. Call it in the page component,
/// outside its `Transition`: a resource created inside is created again (and its facts read
/// again) each time the server renders that part of the page.
pub fn use_whatif(target: Signal<WhatIfTarget>) -> WhatIf {
    let scope = target.with_untracked(|t| t.scope());
    let query = use_query_map();
    let parsed: Memo<Result<Edits, Vec<EditError>>> = Memo::new(move |_| {
        query.with(|q| parse_edits(scope, |k| q.get_all(k).unwrap_or_default()))
    });
    let wanted = Memo::new(move |_| {
        parsed.with(|p| match p {
            Ok(e) if !e.is_empty() => Some(e.clone()),
            _ => None,
        })
    });
    // The facts last read, so that an edit naming no new label key is previewed without
    // reading them again.
    let slot = StoredValue::new(FactsSlot::default());
    let preview = Resource::new(
        move || (target.get(), wanted.get()),
        move |(target, wanted): (WhatIfTarget, Option<Edits>)| async move {
            match wanted {
                None => Ok(None),
                Some(edits) => lazy_preview(target, edits, slot).await.map(Some),
            }
        },
    );
    WhatIf { parsed, preview }
}

/// The what-if section: form, banner, preview, over the page's [`use_whatif`] state.
/// `cordoned` offers uncordon instead of cordon.
#[component]
pub fn WhatIfSection(
    target: WhatIfTarget,
    #[prop(optional)] cordoned: bool,
    whatif: WhatIf,
    #[prop(optional)] collapsible: bool,
) -> impl IntoView {
    let scope = target.scope();
    let path = target.path();
    let carried = target.carried();
    let WhatIf { parsed, preview } = whatif;
    let form_path = path.clone();
    let result_path = path.clone();
    let intro = match target {
        WhatIfTarget::Node(_) => "Preview a taint, a label or a cordon on this node: what the DaemonSet controller and the taint-eviction controller would do. Nothing is sent to the cluster.",
        WhatIfTarget::DaemonSet(_) => "Preview a toleration, a new nodeSelector or new requests for this DaemonSet: on which nodes its pods would start or stop, or no longer fit. Nothing is sent to the cluster.",
        WhatIfTarget::Matrix(_) => "Preview a taint, a label or a cordon on every node the label filter matches (every node without one): the cells that would change are outlined. Nothing is sent to the cluster.",
    };
    let open_at_first = parsed.with_untracked(|p| !matches!(p, Ok(e) if e.is_empty()));
    let body = view! {
            <p class="muted">{intro}</p>
            {move || {
                let current = parsed.get().unwrap_or_default();
                view! { <WhatIfForm scope=scope path=form_path.clone() carried=carried.clone() current=current cordoned=cordoned/> }
            }}
            {move || match parsed.get() {
                Err(errors) => EitherOf3::A(view! { <WhatIfErrors errors=errors path=result_path.clone()/> }),
                Ok(edits) if edits.is_empty() => EitherOf3::B(()),
                Ok(edits) => {
                    let path = result_path.clone();
                    EitherOf3::C(view! {
                        <Transition fallback=|| view! { <p class="loading">"Computing the preview…"</p> }>
                            {move || {
                                let edits = edits.clone();
                                let path = path.clone();
                                Suspend::new(async move {
                                    match preview.await {
                                        Ok(Some(digest)) => {
                                            EitherOf3::A(view! { <WhatIfPreview edits=edits digest=digest path=path/> })
                                        }
                                        Ok(None) => EitherOf3::B(()),
                                        Err(e) => EitherOf3::C(view! { <WhatIfFailed error=e/> }),
                                    }
                                })
                            }}
                        </Transition>
                    })
                }
            }}
    };
    // On the matrix the section folds away (a `<details>`, so it opens without WASM too) unless
    // the URL already asks for a preview. Opening it fetches the preview's module, so the
    // preview is computed as soon as the form is sent; the first view never needs it.
    if collapsible {
        let fetch_preview = move |_| {
            let _loaded = lazy_preload!(preview::lazy_preview);
        };
        Either::Left(view! {
            <details class="whatif" aria-label="What if" data-testid="whatif" open=open_at_first on:toggle=fetch_preview>
                <summary data-testid="whatif-open">"What if… (preview a taint, a label or a cordon on the filtered nodes)"</summary>
                {body}
            </details>
        })
    } else {
        Either::Right(view! {
            <section class="whatif" aria-label="What if" data-testid="whatif">
                <h2>"What if…"</h2>
                {body}
            </section>
        })
    }
}

/// The form. In the browser a submit navigates to the URL with the new edits appended (so the
/// preview is recomputed there, in WASM); without WASM it is a plain GET form, the current
/// edits riding along as hidden fields and empty fields ignored by the parser.
#[component]
fn WhatIfForm(
    scope: EditScope,
    path: String,
    carried: Vec<(String, String)>,
    current: Edits,
    cordoned: bool,
) -> impl IntoView {
    let current_query = to_query(&current);
    let hidden = carried
        .into_iter()
        .chain(
            current_query
                .split('&')
                .filter_map(|p| p.split_once('='))
                .map(|(k, v)| (k.to_string(), decode(v))),
        )
        .map(|(k, v)| view! { <input type="hidden" name=k value=v/> })
        .collect_view();
    let texts: Vec<(&'static str, RwSignal<String>)> = scope
        .params()
        .iter()
        .map(|p| (*p, RwSignal::new(String::new())))
        .collect();
    let flag = RwSignal::new(false);
    let field = {
        let texts = texts.clone();
        move |name: &str| {
            texts
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| *s)
                .unwrap_or_else(|| RwSignal::new(String::new()))
        }
    };
    let navigate = leptos_router::hooks::use_navigate();
    let action = path.split('?').next().unwrap_or("/").to_string();
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let mut pairs: Vec<String> = Vec::new();
        if !current_query.is_empty() {
            pairs.push(current_query.clone());
        }
        for (name, value) in &texts {
            let v = value.get_untracked();
            if !v.trim().is_empty() {
                pairs.push(format!("{name}={}", encode(v.trim())));
            }
        }
        if flag.get_untracked() {
            pairs.push(if cordoned { "uncordon=1" } else { "cordon=1" }.to_string());
        }
        navigate(&join(&path, &pairs.join("&")), Default::default());
    };
    let fields = match scope {
        EditScope::Node => Either::Left(view! {
            <label>"taint " <input name="taint" bind:value=field("taint") data-testid="whatif-taint" placeholder="dedicated=ml:NoExecute" maxlength="512" spellcheck="false" autocomplete="off"/></label>
            <label>"remove taint " <input name="untaint" bind:value=field("untaint") placeholder="key:NoSchedule" maxlength="512" spellcheck="false" autocomplete="off"/></label>
            <label>"label " <input name="label" bind:value=field("label") placeholder="workload-type=cpu" maxlength="512" spellcheck="false" autocomplete="off"/></label>
            <label>"remove label " <input name="unlabel" bind:value=field("unlabel") placeholder="workload-type" maxlength="512" spellcheck="false" autocomplete="off"/></label>
            {if cordoned {
                Either::Left(view! { <label><input type="checkbox" name="uncordon" value="1" bind:checked=flag/>" uncordon"</label> })
            } else {
                Either::Right(view! { <label><input type="checkbox" name="cordon" value="1" bind:checked=flag data-testid="whatif-cordon"/>" cordon"</label> })
            }}
        }),
        EditScope::DaemonSet => Either::Right(view! {
            <label>"tolerate " <input name="tolerate" bind:value=field("tolerate") data-testid="whatif-tolerate" placeholder="dedicated=ml:NoExecute[:300]" maxlength="512" spellcheck="false" autocomplete="off"/></label>
            <label>"nodeSelector " <input name="nodeSelector" bind:value=field("nodeSelector") data-testid="whatif-node-selector" placeholder="workload-type=gpu (- for none)" maxlength="512" spellcheck="false" autocomplete="off"/></label>
            <label title="what each pod would request: on which nodes would it not fit (NodeResourcesFit)?">"requests " <input name="requests" bind:value=field("requests") data-testid="whatif-requests" placeholder="cpu=500m,memory=256Mi" maxlength="512" spellcheck="false" autocomplete="off"/></label>
        }),
    };
    view! {
        <form method="get" action=action class="filter whatif-form" data-testid="whatif-form" aria-label="Add a what-if edit" on:submit=on_submit>
            {hidden}
            {fields}
            <button type="submit" data-testid="whatif-submit">"Preview"</button>
        </form>
    }
}

#[component]
fn WhatIfErrors(errors: Vec<EditError>, path: String) -> impl IntoView {
    view! {
        <div class="whatif-error" role="alert" data-testid="whatif-error">
            <p><strong>"This what-if cannot be previewed:"</strong></p>
            <ul>
                {errors.into_iter().map(|e| view! { <li><code>{e.to_string()}</code></li> }).collect_view()}
            </ul>
            <p><a href=path data-testid="whatif-reset">"Start again"</a></p>
        </div>
    }
}

#[component]
fn WhatIfFailed(error: DashboardError) -> impl IntoView {
    view! {
        <div class="whatif-error" role="alert" data-testid="whatif-error">
            "The facts for the preview could not be read: " {error.to_string()}
        </div>
    }
}
