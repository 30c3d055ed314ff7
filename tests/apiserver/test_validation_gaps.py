"""API validation rules a learner meets: extended resources, rolling-update bounds,
matchLabelKeys and minDomains, in upstream's words.

Ported from pkg/apis/core/validation/validation_test.go (TestValidateResourceRequirements'
extended-resource cases, TestValidateTopologySpreadConstraints' minDomains and matchLabelKeys
cases) and pkg/apis/apps/validation/validation_test.go (TestValidateDeployment's
"maxSurge and maxUnavailable both zero", TestValidateDaemonSetUpdateStrategy's RollingUpdate
cases). Messages: validation.go's validateResourceRequirements, validateMinDomains,
ValidateMatchLabelKeysInTopologySpread, ValidateRollingUpdateDeployment and
ValidateRollingUpdateDaemonSet.
"""

from __future__ import annotations

import pytest

from ksandbox.api.errors import ValidationError
from ksandbox.api.manifest import load_manifests
from ksandbox.apiserver.validation import validate
from ksandbox.session import Session


def _pod(resources: str = "{}", extra_spec: str = "") -> str:
    return f"""
apiVersion: v1
kind: Pod
metadata: {{name: p}}
spec:
  containers: [{{name: c, image: "x:1", resources: {resources}}}]
{extra_spec}"""


def _errors(text: str) -> str:
    (obj,) = load_manifests(text)
    try:
        validate(None, obj)
    except ValidationError as e:
        return str(e)
    return ""


@pytest.mark.parametrize("resources,error", [
    # valid: an extended resource with request == limit, or a limit only
    ('{requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "1"}}', ""),
    ('{limits: {example.com/foo: "2"}}', ""),
    # cpu may be overcommitted, so request < limit is fine for it
    ('{requests: {cpu: 100m}, limits: {cpu: "1"}}', ""),
    ('{requests: {nvidia.com/gpu: "1"}}',
     'The Pod "p" is invalid: spec.containers[0].resources.limits: Required value: Limit must '
     'be set for non overcommitable resources'),
    ('{requests: {nvidia.com/gpu: "1"}, limits: {nvidia.com/gpu: "2"}}',
     'The Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "1": must '
     'be equal to nvidia.com/gpu limit of 2'),
    ('{requests: {hugepages-2Mi: 2Mi, memory: 1Gi}, limits: {hugepages-2Mi: 4Mi, memory: 1Gi}}',
     'The Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2Mi": '
     'must be equal to hugepages-2Mi limit of 4Mi'),
    ('{requests: {cpu: "2"}, limits: {cpu: "1"}}',
     'The Pod "p" is invalid: spec.containers[0].resources.requests: Invalid value: "2": must '
     'be less than or equal to cpu limit of 1'),
    ('{limits: {nvidia.com/gpu: 500m}}',
     'The Pod "p" is invalid: spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid '
     'value: 500m: must be an integer'),
])
def test_extended_resources_need_limits_equal_to_requests(resources: str, error: str) -> None:
    """TestValidateResourceRequirements: extended resources and hugepages cannot be
    overcommitted (v1helper.IsOvercommitAllowed), so a request needs an equal limit."""
    assert _errors(_pod(resources)) == error


def test_the_sandbox_refuses_a_gpu_request_without_a_limit_and_changes_nothing() -> None:
    s = Session.from_text("""
apiVersion: v1
kind: Node
metadata: {name: n}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "2"}}
""")
    r = s.submit("kubectl apply -f -", stdin=_pod('{requests: {nvidia.com/gpu: "1"}}'))
    assert r.error == ('The Pod "p" is invalid: spec.containers[0].resources.limits: '
                       'Required value: Limit must be set for non overcommitable resources\n')
    assert s.store.get("Pod", "p", "default") is None


def _deployment(ru: str) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d}}
spec:
  selector: {{matchLabels: {{a: b}}}}
  strategy: {{type: RollingUpdate, rollingUpdate: {ru}}}
  template: {{metadata: {{labels: {{a: b}}}}, spec: {{containers: [{{name: c, image: "x:1"}}]}}}}
"""


@pytest.mark.parametrize("ru,error", [
    ("{maxSurge: 1, maxUnavailable: 0}", ""),
    ("{maxSurge: 0, maxUnavailable: 1}", ""),
    ('{maxSurge: "25%", maxUnavailable: "25%"}', ""),
    ("{maxSurge: 0, maxUnavailable: 0}",
     'The Deployment "d" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid '
     'value: 0: may not be 0 when `maxSurge` is 0'),
    ('{maxSurge: "0%", maxUnavailable: "0%"}',
     'The Deployment "d" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid '
     'value: 0%: may not be 0 when `maxSurge` is 0'),
    ('{maxSurge: 1, maxUnavailable: "110%"}',
     'The Deployment "d" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid '
     'value: 110%: must not be greater than 100%'),
    ("{maxSurge: -1, maxUnavailable: 1}",
     'The Deployment "d" is invalid: spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: '
     'must be greater than or equal to 0'),
])
def test_rolling_update_bounds(ru: str, error: str) -> None:
    """TestValidateDeployment / ValidateRollingUpdateDeployment: maxSurge and maxUnavailable
    both zero is refused (the rollout could never progress)."""
    assert _errors(_deployment(ru)) == error


@pytest.mark.parametrize("ru,error", [
    ("{maxUnavailable: 1}", ""),      # maxSurge defaults to 0
    ("{maxUnavailable: 0, maxSurge: 1}", ""),
    ("{maxUnavailable: 0, maxSurge: 0}",
     'The DaemonSet "ds" is invalid: spec.updateStrategy.rollingUpdate.maxUnavailable: '
     'Required value: cannot be 0 when maxSurge is 0'),
    ("{maxUnavailable: 1, maxSurge: 1}",
     'The DaemonSet "ds" is invalid: spec.updateStrategy.rollingUpdate.maxSurge: Invalid '
     'value: 1: may not be set when maxUnavailable is non-zero'),
])
def test_daemonset_rolling_update_bounds(ru: str, error: str) -> None:
    """TestValidateDaemonSetUpdateStrategy: exactly one of maxUnavailable/maxSurge non-zero
    (after defaulting: the API server defaults before it validates)."""
    s = Session.from_text("")
    text = f"""
apiVersion: apps/v1
kind: DaemonSet
metadata: {{name: ds}}
spec:
  selector: {{matchLabels: {{a: b}}}}
  updateStrategy: {{type: RollingUpdate, rollingUpdate: {ru}}}
  template: {{metadata: {{labels: {{a: b}}}}, spec: {{containers: [{{name: c, image: "x:1"}}]}}}}
"""
    r = s.submit("kubectl apply -f -", stdin=text)
    assert (error in r.error) if error else not r.error, r.error


def _spread(constraint: str) -> str:
    return _pod(extra_spec=f"  topologySpreadConstraints: [{constraint}]\n")


@pytest.mark.parametrize("constraint,error", [
    ("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 3, "
     "labelSelector: {matchLabels: {a: b}}, matchLabelKeys: [pod-template-hash]}", ""),
    ("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, minDomains: 0}",
     'The Pod "p" is invalid: spec.topologySpreadConstraints[0].minDomains: Invalid value: 0: '
     'must be greater than zero'),
    ("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: -1}",
     'The Pod "p" is invalid: [spec.topologySpreadConstraints[0].minDomains: Invalid value: '
     '-1: must be greater than zero, spec.topologySpreadConstraints[0].minDomains: Invalid '
     'value: -1: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not '
     'ScheduleAnyway]'),
    ("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, "
     "matchLabelKeys: [app]}",
     'The Pod "p" is invalid: spec.topologySpreadConstraints[0].matchLabelKeys: Forbidden: '
     'must not be specified when labelSelector is not set'),
    ("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, "
     "labelSelector: {matchLabels: {app: web}}, matchLabelKeys: [app]}",
     'The Pod "p" is invalid: spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid '
     'value: "app": exists in both matchLabelKeys and labelSelector'),
    ("{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, "
     "labelSelector: {matchExpressions: [{key: app, operator: Exists}]}, "
     "matchLabelKeys: [app]}",
     'The Pod "p" is invalid: spec.topologySpreadConstraints[0].matchLabelKeys[0]: Invalid '
     'value: "app": exists in both matchLabelKeys and labelSelector'),
])
def test_topology_spread_min_domains_and_match_label_keys(constraint: str, error: str) -> None:
    """TestValidateTopologySpreadConstraints: minDomains must be positive and needs
    DoNotSchedule (both checked); matchLabelKeys needs a labelSelector and may not repeat
    one of its keys."""
    assert _errors(_spread(constraint)) == error


def _node(capacity: str) -> str:
    return f"""
apiVersion: v1
kind: Node
metadata: {{name: n}}
status: {{capacity: {capacity}, allocatable: {capacity}}}
"""


# ValidateNonnegativeQuantity: a Node's capacity and allocatable and a container's requests
# refuse a negative amount and take zero (validation_pod._quantity_nonneg reads the quantity's
# sign instead of comparing it with a zero it builds).
@pytest.mark.parametrize("text,error", [
    (_node('{cpu: "4", memory: 0, pods: "110"}'), ""),
    (_node('{cpu: "0", memory: 1n}'), ""),
    (_node('{cpu: "-1m", memory: 1Gi}'),
     'The Node "n" is invalid: [status.capacity.cpu: Invalid value: "-1m": must be greater '
     'than or equal to 0, status.allocatable.cpu: Invalid value: "-1m": must be greater than '
     'or equal to 0]'),
    (_pod('{requests: {cpu: "0", memory: 0}}'), ""),
    (_pod('{requests: {cpu: 100m, memory: "-1"}}'),
     'The Pod "p" is invalid: spec.containers[0].resources.requests.memory: Invalid value: '
     '"-1": must be greater than or equal to 0'),
])
def test_negative_quantities_are_refused_zero_is_taken(text: str, error: str) -> None:
    assert _errors(text) == error


@pytest.mark.parametrize("env,error", [
    ('[{name: A, value: "1"}, {name: "my.var-1", value: ""}, {name: "a b"}]', ""),
    ('[{value: "1"}]',
     'The Pod "p" is invalid: spec.containers[0].env[0].name: Required value'),
    ('[{name: A}, {name: "", value: x}]',
     'The Pod "p" is invalid: spec.containers[0].env[1].name: Required value'),
    ('[{name: "A=B"}]',
     'The Pod "p" is invalid: spec.containers[0].env[0].name: Invalid value: "A=B": a valid '
     "environment variable name must consist only of printable ASCII characters other than "
     "'='"),
    ('[{name: "caf\\u00e9"}]',
     'The Pod "p" is invalid: spec.containers[0].env[0].name: Invalid value: "caf\u00e9": a '
     "valid environment variable name must consist only of printable ASCII characters other "
     "than '='"),
])
def test_env_var_names(env, error):
    """validation.go ValidateEnv (TestValidateEnv's cases): a variable needs a name, and
    with RelaxedEnvironmentVariableValidation (on by default since 1.32, GA in 1.34) any
    printable ASCII but '=' will do."""
    pod = _pod().replace('resources: {}}', f'resources: {{}}, env: {env}}}')
    assert _errors(pod) == error
    # a template is held to it too (the Deployment's pods could not be created)
    deploy = f"""
apiVersion: apps/v1
kind: Deployment
metadata: {{name: d}}
spec:
  selector: {{matchLabels: {{a: b}}}}
  template:
    metadata: {{labels: {{a: b}}}}
    spec: {{containers: [{{name: c, image: "x:1", env: {env}}}]}}
"""
    assert _errors(deploy) == error.replace('Pod "p"', 'Deployment "d"').replace(
        "spec.containers", "spec.template.spec.containers")
