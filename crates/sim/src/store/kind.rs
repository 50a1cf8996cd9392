//! The resource kinds the simulated cluster serves, with the names the API uses for each.
//!
//! One table instead of strings scattered through the server: discovery, paths, errors
//! (`daemonsets.apps "x" not found`) and list kinds all read from here.

/// The API group of PriorityClasses.
pub const SCHEDULING_GROUP: &str = "scheduling.k8s.io";

/// A kind of object the simulated cluster stores and serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Namespace,
    Node,
    Pod,
    DaemonSet,
    ControllerRevision,
    Event,
    /// `scheduling.k8s.io/v1` PriorityClass: what the Priority admission resolves a pod's
    /// `priorityClassName` against (§k.5).
    PriorityClass,
    /// `v1` ResourceQuota: what the ResourceQuota admission checks a new pod against, with
    /// the status the quota controller keeps (§l.4, §l.6).
    ResourceQuota,
}

impl Kind {
    /// Every kind, in the order discovery lists them.
    pub const ALL: [Kind; 8] = [
        Kind::Namespace,
        Kind::Node,
        Kind::Pod,
        Kind::Event,
        Kind::DaemonSet,
        Kind::ControllerRevision,
        Kind::PriorityClass,
        Kind::ResourceQuota,
    ];

    /// Dense index for per-kind tables.
    pub fn index(self) -> usize {
        match self {
            Kind::Namespace => 0,
            Kind::Node => 1,
            Kind::Pod => 2,
            Kind::DaemonSet => 3,
            Kind::ControllerRevision => 4,
            Kind::Event => 5,
            Kind::PriorityClass => 6,
            Kind::ResourceQuota => 7,
        }
    }

    /// The `kind` field of an object (`DaemonSet`).
    pub fn kind_name(self) -> &'static str {
        match self {
            Kind::Namespace => "Namespace",
            Kind::Node => "Node",
            Kind::Pod => "Pod",
            Kind::DaemonSet => "DaemonSet",
            Kind::ControllerRevision => "ControllerRevision",
            Kind::Event => "Event",
            Kind::PriorityClass => "PriorityClass",
            Kind::ResourceQuota => "ResourceQuota",
        }
    }

    /// The plural resource name used in paths (`daemonsets`).
    pub fn plural(self) -> &'static str {
        match self {
            Kind::Namespace => "namespaces",
            Kind::Node => "nodes",
            Kind::Pod => "pods",
            Kind::DaemonSet => "daemonsets",
            Kind::ControllerRevision => "controllerrevisions",
            Kind::Event => "events",
            Kind::PriorityClass => "priorityclasses",
            Kind::ResourceQuota => "resourcequotas",
        }
    }

    /// The singular resource name discovery advertises.
    pub fn singular(self) -> &'static str {
        match self {
            Kind::Namespace => "namespace",
            Kind::Node => "node",
            Kind::Pod => "pod",
            Kind::DaemonSet => "daemonset",
            Kind::ControllerRevision => "controllerrevision",
            Kind::Event => "event",
            Kind::PriorityClass => "priorityclass",
            Kind::ResourceQuota => "resourcequota",
        }
    }

    /// The API group (`""` for core).
    pub fn group(self) -> &'static str {
        match self {
            Kind::DaemonSet | Kind::ControllerRevision => "apps",
            Kind::PriorityClass => SCHEDULING_GROUP,
            _ => "",
        }
    }

    /// The `apiVersion` field of an object.
    pub fn api_version(self) -> &'static str {
        match self {
            Kind::DaemonSet | Kind::ControllerRevision => "apps/v1",
            Kind::PriorityClass => "scheduling.k8s.io/v1",
            _ => "v1",
        }
    }

    /// Whether objects of this kind live in a namespace.
    pub fn namespaced(self) -> bool {
        !matches!(self, Kind::Namespace | Kind::Node | Kind::PriorityClass)
    }

    /// Short names kubectl accepts (`ds`, `no`, `po`).
    pub fn short_names(self) -> &'static [&'static str] {
        match self {
            Kind::Namespace => &["ns"],
            Kind::Node => &["no"],
            Kind::Pod => &["po"],
            Kind::DaemonSet => &["ds"],
            Kind::ControllerRevision => &[],
            Kind::Event => &["ev"],
            Kind::PriorityClass => &["pc"],
            Kind::ResourceQuota => &["quota"],
        }
    }

    /// Whether the kind has a `status` subresource (PUT on the object keeps the old status).
    pub fn has_status(self) -> bool {
        matches!(
            self,
            Kind::Namespace | Kind::Node | Kind::Pod | Kind::DaemonSet | Kind::ResourceQuota
        )
    }

    /// The `kind` of a list of these objects (`PodList`).
    pub fn list_kind(self) -> &'static str {
        match self {
            Kind::Namespace => "NamespaceList",
            Kind::Node => "NodeList",
            Kind::Pod => "PodList",
            Kind::DaemonSet => "DaemonSetList",
            Kind::ControllerRevision => "ControllerRevisionList",
            Kind::Event => "EventList",
            Kind::PriorityClass => "PriorityClassList",
            Kind::ResourceQuota => "ResourceQuotaList",
        }
    }

    /// `resource.group` as the API server names it in error messages (`daemonsets.apps`).
    pub fn qualified_resource(self) -> String {
        if self.group().is_empty() {
            self.plural().to_string()
        } else {
            format!("{}.{}", self.plural(), self.group())
        }
    }

    /// The kind served under `group` with the plural `resource`, if any.
    pub fn from_resource(group: &str, resource: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.group() == group && k.plural() == resource)
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.kind_name())
    }
}
