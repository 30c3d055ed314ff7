"""Numbers as the API defines them (issue 13, item 2).

- Flags: pflag's int, int32 and int64 flags call Go's ``strconv.ParseInt(s, 0, bits)``
  (spf13/pflag int.go, int32.go, int64.go); the table below follows the base-0 cases of Go's
  strconv/atoi_test.go (parseInt64BaseTests, underscore cases). kubectl scale sends
  ``int32(newSize)`` (k8s.io/kubectl/pkg/scale/scale.go ScaleSimple).
- Fields: the API server's JSON decoder refuses a number its Go field cannot hold
  (encoding/json UnmarshalTypeError, wrapped as ``Pod in version "v1" cannot be handled as a
  Pod: ...`` by apimachinery's codec).
- Time: ``--until``, ``at:``, markers and ``start.at`` are finite, 0 or more and within the
  horizon (sim/limits.py).
"""

from __future__ import annotations

import json

import pytest

from ksandbox.cli import main
from ksandbox.commands.parse import go_parse_int
from ksandbox.session import Session
from ksandbox.sim import limits

NODE = ("apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\n"
        "status: {capacity: {cpu: '2', memory: 4Gi, pods: '110'}}\n")
DEPLOY = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n"
          "  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n"
          "    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: i}]}\n")


@pytest.mark.parametrize("text, want", [
    ("0", 0), ("-0", 0), ("+5", 5), ("07", 7), ("0o17", 15), ("0O17", 15), ("0x1F", 31),
    ("0X1f", 31), ("-0b101", -5), ("1_000", 1000), ("0_7", 7), ("0x_1f", 31),
    ("9223372036854775807", 2 ** 63 - 1), ("-9223372036854775808", -2 ** 63),
    ("08", "invalid syntax"), ("0x", "invalid syntax"), ("", "invalid syntax"),
    ("-", "invalid syntax"), ("_1", "invalid syntax"), ("1_", "invalid syntax"),
    ("1__0", "invalid syntax"), ("1x", "invalid syntax"), ("1.5", "invalid syntax"),
    (" 1", "invalid syntax"), ("٣", "invalid syntax"),
    ("9223372036854775808", "value out of range"), ("-9223372036854775809", "value out of range"),
    ("99999999999999999999999x", "value out of range"),
])
def test_flags_parse_integers_as_go_strconv_parseint_base_0(text, want):
    if isinstance(want, int):
        assert go_parse_int(text) == want
    else:
        with pytest.raises(ValueError, match=want):
            go_parse_int(text)


def test_int32_flags_have_the_int32_range():
    assert go_parse_int("2147483647", 32) == 2 ** 31 - 1
    with pytest.raises(ValueError, match="value out of range"):
        go_parse_int("2147483648", 32)


def _session() -> Session:
    return Session.from_text(NODE + "---\n" + DEPLOY)


def test_scale_replicas_07_is_seven_as_kubectl_reads_it():
    s = _session()
    r = s.submit("kubectl scale deployment web --replicas=07")
    assert r.ok, r.error
    assert s.store.get("Deployment", "web", "default").spec.replicas == 7


@pytest.mark.parametrize("value, error", [
    ("08", 'error: invalid argument "08" for "--replicas" flag: strconv.ParseInt: parsing '
           '"08": invalid syntax'),
    ("99999999999999999999", 'error: invalid argument "99999999999999999999" for "--replicas" '
                             'flag: strconv.ParseInt: parsing "99999999999999999999": value out '
                             'of range'),
])
def test_scale_replicas_kubectl_cannot_read_is_its_flag_error(value, error):
    s = _session()
    r = s.submit(f"kubectl scale deployment web --replicas={value}")
    assert r.error.splitlines()[0] == error
    assert s.store.get("Deployment", "web", "default").spec.replicas == 1


def test_scale_sends_int32_of_the_count_as_kubectl_does():
    s = _session()
    assert s.submit("kubectl scale deployment web --replicas=4294967298").ok
    assert s.store.get("Deployment", "web", "default").spec.replicas == 2
    r = s.submit("kubectl scale deployment web --replicas=2147483648")
    assert "spec.replicas: Invalid value: -2147483648: must be greater than or equal to 0" \
        in r.error
    assert s.store.get("Deployment", "web", "default").spec.replicas == 2


def test_autoscale_bounds_are_int32_flags():
    r = _session().submit("kubectl autoscale deployment web --max=3000000000")
    assert r.error.splitlines()[0] == (
        'error: invalid argument "3000000000" for "--max" flag: strconv.ParseInt: parsing '
        '"3000000000": value out of range')


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    return lines[0]


POD = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, "
       "image: i}]\n")


@pytest.mark.parametrize("field, value, go", [
    ("  priority: {v}\n", "99999999999999999999999",
     "PodSpec.spec.priority of type int32"),
    ("  priority: {v}\n", "2147483648", "PodSpec.spec.priority of type int32"),
    ("  tolerations: [{{key: a, operator: Exists, tolerationSeconds: {v}}}]\n",
     "-99999999999999999999", "Toleration.spec.tolerations.tolerationSeconds of type int64"),
    ("  terminationGracePeriodSeconds: {v}\n", "9223372036854775808",
     "PodSpec.spec.terminationGracePeriodSeconds of type int64"),
])
def test_numbers_their_go_field_cannot_hold_are_refused_as_the_api_server_does(
        tmp_path, capsys, field, value, go):
    p = tmp_path / "p.yaml"
    p.write_text(NODE + "---\n" + POD + field.format(v=value))
    assert main(["sim", "-f", str(p), "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err) == (
        f'error: {p} (document 2): Pod in version "v1" cannot be handled as a Pod: json: cannot '
        f'unmarshal number {value} into Go struct field {go}')


def test_the_largest_int64_is_accepted():
    ok = Session.from_text(POD + "  tolerations: [{key: a, operator: Exists, "
                                 "effect: NoExecute, tolerationSeconds: 9223372036854775807}]\n")
    assert ok.store.get("Pod", "p", "default").spec.tolerations[0].toleration_seconds == 2 ** 63 - 1


@pytest.mark.parametrize("replicas, given", [("2147483648", "number 2147483648"),
                                             ('"3"', "string")])
def test_a_list_items_refusal_is_named_from_the_items_own_root(tmp_path, capsys, replicas,
                                                                given):
    """The server decodes each item of a List on its own: the field's path starts at the
    item, and the loader says which item it was."""
    p = tmp_path / "l.yaml"
    p.write_text("apiVersion: v1\nkind: List\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n"
                 f"  metadata: {{name: d}}\n  spec: {{replicas: {replicas}}}\n")
    assert main(["sim", "-f", str(p), "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err) == (
        f'error: {p} (document 1): items[0]: Deployment in version "v1" cannot be handled as a '
        f'Deployment: json: cannot unmarshal {given} into Go struct field '
        f'DeploymentSpec.spec.replicas of type int32')


@pytest.mark.parametrize("spec, go", [
    ("  containers: {name: c, image: i}\n",
     "PodSpec.spec.containers of type []v1.Container"),
    ("  containers: [x]\n", "PodSpec.spec.containers of type v1.Container"),
    ("  containers: [{name: c, image: i, env: prod}]\n",
     "Container.spec.containers.env of type []v1.EnvVar"),
    ("  containers: [{name: c, image: i, command: echo}]\n",
     "Container.spec.containers.command of type []string"),
    ("  containers: [{name: c, image: i, tty: 1}]\n",
     "Container.spec.containers.tty of type bool"),
    ("  containers: [{name: c, image: i}]\n  nodeSelector: [a]\n",
     "PodSpec.spec.nodeSelector of type map[string]string"),
    ("  containers: [{name: c, image: i}]\n  nodeSelector: {disk: 1}\n",
     "PodSpec.spec.nodeSelector of type string"),
    ("  containers: [{name: c, image: i, resources: {requests: [1]}}]\n",
     "ResourceRequirements.spec.containers.resources.requests of type v1.ResourceList"),
    ("  containers: [{name: c, image: i}]\n  affinity: yes\n",
     "PodSpec.spec.affinity of type v1.Affinity"),
    ("  containers: [{name: c, image: i, imagePullPolicy: 1}]\n",
     "Container.spec.containers.imagePullPolicy of type v1.PullPolicy"),
    ("  containers: [{name: c, image: i}]\n  tolerations: [{key: a, operator: true}]\n",
     "Toleration.spec.tolerations.operator of type v1.TolerationOperator"),
])
def test_a_value_of_the_wrong_json_kind_is_refused_as_the_api_servers_decoder_does(
        tmp_path, capsys, spec, go):
    """encoding/json's UnmarshalTypeError, for a slice, a map, a struct and the fields the
    sandbox keeps without modelling them (env, command, tty): the JSON kind given, the
    innermost struct, the path without indexes or map keys, the Go type."""
    p = tmp_path / "p.yaml"
    p.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n" + spec)
    assert main(["sim", "-f", str(p), "-o", "json"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f'error: {p} (document 1): Pod in version "v1" cannot be handled as '
                           'a Pod: json: cannot unmarshal '), line
    assert line.endswith(f" into Go struct field {go}"), line


@pytest.mark.parametrize("until, problem", [
    ("nan", "must be a finite number of simulated seconds, 0 or more"),
    ("inf", "must be a finite number of simulated seconds, 0 or more"),
    ("-5", "must be a number of simulated seconds, 0 or more"),
    ("soon", "must be a number of simulated seconds, 0 or more"),
    ("1e9", "must be at most the horizon of 2592000 s (30 days); --horizon SECONDS moves it"),
])
def test_until_must_be_finite_non_negative_and_within_the_horizon(tmp_path, capsys, until,
                                                                  problem):
    m = tmp_path / "m.yaml"
    m.write_text(NODE)
    assert main(["sim", "-f", str(m), f"--until={until}", "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err) == \
        f'error: invalid value "{until}" for --until: {problem}'


def test_horizon_flag_moves_the_horizon_for_that_run_only(tmp_path, capsys):
    m = tmp_path / "m.yaml"
    m.write_text(NODE)
    assert main(["sim", "-f", str(m), "--until", "200", "--horizon", "100", "-o", "json"]) == 1
    assert "must be at most the horizon of 100 s" in capsys.readouterr().err
    assert main(["sim", "-f", str(m), "--until", "200", "--horizon", "300", "-o", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["time"] == 200.0
    assert limits.LIMITS.horizon == 30 * 86400.0
    assert main(["sim", "-f", str(m), "--horizon", "nan", "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err).startswith(
        'error: invalid value "nan" for --horizon: must be a number of simulated seconds '
        'greater than 0')


@pytest.mark.parametrize("step, shown", [
    ("at: 1000000000000000000000000000000\n    command: kubectl cordon node-1", "1e+30"),
    ("at: 1.0e+12\n    marker: far", "1e+12"),
    ("at: .inf\n    caption: forever", "inf"),
])
def test_a_step_past_the_horizon_is_refused_at_load(tmp_path, capsys, step, shown):
    m = tmp_path / "m.yaml"
    m.write_text(NODE)
    s = tmp_path / "s.yaml"
    s.write_text(f"steps:\n  - {step}\n")
    assert main(["sim", "-f", str(m), "--script", str(s), "-o", "json"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"error: {s}: line 2: steps[0].at: Invalid value: {shown}: must be")


def test_a_recording_with_a_far_marker_is_refused_before_it_plays(tmp_path, capsys):
    rec = tmp_path / "r.yaml"
    rec.write_text("apiVersion: ksandbox/v1alpha2\nkind: Recording\ncluster: default\n"
                   "start: {at: 99999999999999999999999999999, steps: []}\nsteps: []\n")
    assert main(["play", str(rec), "--headless", "-o", "json"]) == 1
    assert one_error_line(capsys.readouterr().err).startswith(
        f"error: {rec}: line 4: start.at: Invalid value: 1e+29: must be at most the horizon")


def test_a_session_never_runs_past_the_horizon():
    s = Session.from_text(NODE)
    limits.configure(horizon=500.0)
    try:
        s.run_until(10 ** 9)
        assert s.now == 500.0
    finally:
        limits.configure(horizon=30 * 86400.0)


@pytest.mark.parametrize("text", [
    "a: " + "9" * 5000 + "\n",                          # the fast path hands it over
    "a: &x [1]\nb: *x\nc: " + "9" * 5000 + "\n",        # the plain path from the start
    '{"a": ' + "9" * 3_000_000 + "}",                   # JSON: refused, not converted
], ids=["yaml", "yaml with an alias", "json"])
def test_integers_longer_than_pythons_digit_limit_are_one_error_line(tmp_path, capsys, text):
    p = tmp_path / "m.yaml"
    p.write_text(text)
    assert main(["sim", "-f", str(p), "-o", "json"]) == 1
    line = one_error_line(capsys.readouterr().err)
    assert line.startswith(f"error: {p} (document 1): error converting YAML to JSON: yaml: ")
    assert line.endswith("characters is longer than the 4300 digits an integer may have")


def test_a_long_integer_in_a_field_is_named_by_its_size(tmp_path, capsys):
    p = tmp_path / "p.json"
    p.write_text('{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": '
                 '{"priority": ' + "9" * 4299 + ', "containers": [{"name": "c", "image": "i"}]}}')
    assert main(["sim", "-f", str(p), "-o", "json"]) == 1
    assert "cannot unmarshal number 999999...999999 (4299 digits) into Go struct field " \
           "PodSpec.spec.priority of type int32" in capsys.readouterr().err


def test_a_percent_with_thousands_of_digits_is_refused_by_validation_not_a_crash():
    """apps validation getPercentValue: strconv.Atoi's range error is ignored and the value
    clamped, so IsNotMoreThan100Percent refuses it (found by tests/test_fuzz.py)."""
    s = _session()
    pdb = ("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec:\n"
           f"  minAvailable: '{'9' * 5000}%'\n  selector: {{matchLabels: {{app: web}}}}\n")
    r = s.submit("kubectl apply -f -", stdin=pdb)
    assert "must not be greater than 100%" in r.error and "internal" not in r.error
    r = s.submit(f"kubectl autoscale deployment web --max=3 --cpu={'9' * 5000}%")
    assert r.error.startswith("error: invalid percentage value")


@pytest.mark.parametrize("command", [
    "kubectl scale deployment web --replicas={n}",
    "kubectl autoscale deployment web --max={n}",
    "kubectl delete pod ghost --grace-period={n}",
    "kubectl run x --image=i --port={n}",
    "kubectl label node node-1 a={n}",
    "kubectl get pods -l a>{n}",
    "ksandbox load deployment/web {n}",
    "ksandbox add node n{n}",
])
def test_a_five_thousand_digit_number_in_any_command_is_an_error_not_a_crash(command):
    s = _session()
    r = s.submit(command.format(n="9" * 5000))
    assert r.error and "internal" not in r.error, r.error


def test_a_node_larger_than_int64_is_scheduled_on_not_a_crash():
    """A capacity past int64 (found by tests/test_fuzz.py): the scheduler's integers saturate
    (quantity.resource_amount), so its int64 columns hold them and pods still land."""
    s = Session.from_text(NODE.replace("memory: 4Gi", "memory: 9223372036854775808") + "---\n"
                          + POD)
    s.run_until(5)
    assert s.store.get("Pod", "p", "default").spec.node_name == "node-1"
    assert 2 ** 62 < s.store.get("Node", "node-1").allocatable_amounts["memory"] <= 2 ** 63 - 1
