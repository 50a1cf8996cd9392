//! Requests, limits, capacities and allocatable in a scenario file are Kubernetes quantities:
//! a value kube-apiserver would refuse (`1K`, `lots`, `1.5.2`) is refused at load, naming the
//! field, with the API's reason (§j.1).
//!
//! Why at load: the scheduler in the sim counts these values (§k); a value it could not read
//! would silently count as nothing and leave an agent running where Kubernetes would not.

use serde_json::Value;

use crate::domain::resources::Quantity;

/// Checks every quantity of one resource map (`requests`, `allocatable`, …) at `field`.
fn check_map(value: Option<&Value>, field: &str) -> Result<(), (String, String)> {
    let Some(map) = value.and_then(Value::as_object) else {
        return Ok(());
    };
    for (name, quantity) in map {
        let text = match quantity {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            other => {
                return Err((
                    format!("{field}[{name}]"),
                    format!("a quantity is a string or a number, not {other}"),
                ))
            }
        };
        Quantity::parse(&text)
            .map_err(|e| (format!("{field}[{name}]"), format!("{text:?}: {e}")))?;
    }
    Ok(())
}

/// The quantities of a pod spec at `prefix` (`spec`, `spec.template.spec`).
fn check_pod_spec(spec: Option<&Value>, prefix: &str) -> Result<(), (String, String)> {
    let Some(spec) = spec else { return Ok(()) };
    for list in ["containers", "initContainers"] {
        for (i, c) in spec
            .get(list)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for part in ["requests", "limits"] {
                check_map(
                    c.pointer(&format!("/resources/{part}")),
                    &format!("{prefix}.{list}[{i}].resources.{part}"),
                )?;
            }
        }
    }
    for part in ["requests", "limits"] {
        check_map(
            spec.pointer(&format!("/resources/{part}")),
            &format!("{prefix}.resources.{part}"),
        )?;
    }
    check_map(spec.get("overhead"), &format!("{prefix}.overhead"))
}

/// Checks the quantities of one scenario document of `kind`: Err((field, reason)).
pub(super) fn check(kind: &str, doc: &Value) -> Result<(), (String, String)> {
    match kind {
        "Node" => {
            check_map(doc.pointer("/status/capacity"), "status.capacity")?;
            check_map(doc.pointer("/status/allocatable"), "status.allocatable")
        }
        "Pod" => check_pod_spec(doc.get("spec"), "spec"),
        "DaemonSet" => check_pod_spec(doc.pointer("/spec/template/spec"), "spec.template.spec"),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_quantity_form_the_api_accepts_loads_and_a_bad_one_names_its_field() {
        let node = json!({"status": {"allocatable": {"cpu": "1.5", "memory": "1Gi", "pods": 110,
            "ephemeral-storage": "1e3", "nvidia.com/gpu": "0.1Ki"}}});
        assert_eq!(check("Node", &node), Ok(()), "§j.1");
        let bad = json!({"status": {"capacity": {"cpu": "1K"}}});
        let (field, reason) = check("Node", &bad).expect_err("1K is refused");
        assert_eq!(field, "status.capacity[cpu]");
        assert!(reason.contains("1K"), "{reason}");
        let ds = json!({"spec": {"template": {"spec": {"containers": [
            {"name": "a", "resources": {"requests": {"cpu": "100m"}}},
            {"name": "b", "resources": {"limits": {"memory": "lots"}}}]}}}});
        let (field, _) = check("DaemonSet", &ds).expect_err("lots is refused");
        assert_eq!(
            field,
            "spec.template.spec.containers[1].resources.limits[memory]"
        );
        let pod = json!({"spec": {"overhead": {"cpu": true}}});
        assert_eq!(
            check("Pod", &pod).map_err(|e| e.0),
            Err("spec.overhead[cpu]".into())
        );
    }
}
