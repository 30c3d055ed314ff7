"""KubeSchedulerConfiguration and legacy Policy loading: merging, weights, errors."""

import pytest

from ksandbox.api.errors import ManifestError
from ksandbox.api.manifest import ConfigDocument
from ksandbox.scheduler.framework.config import load_config
from ksandbox.scheduler.framework.runtime import Handle, build_framework
from ksandbox.scheduler.framework.cache import SchedulerCache


def ksc(data, doc=1):
    base = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}
    return ConfigDocument("KubeSchedulerConfiguration", base["apiVersion"], {**base, **data},
                          "sched.yaml", doc)


def policy(data):
    return ConfigDocument("Policy", "v1", {"kind": "Policy", "apiVersion": "v1", **data},
                          "policy.yaml", 1)


def frameworks(cfg):
    h = Handle(SchedulerCache())
    return {p.scheduler_name: build_framework(p, h) for p in cfg.profiles}


def names(plugins):
    return [p.name for p in plugins]


DEFAULT_FILTERS = ["NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity",
                   "NodePorts", "NodeResourcesFit", "VolumeRestrictions", "VolumeBinding",
                   "VolumeZone",
                   "PodTopologySpread", "InterPodAffinity"]
DEFAULT_WEIGHTS = {"TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1,
                   "PodTopologySpread": 2, "InterPodAffinity": 2,
                   "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}


def test_default_profile_has_upstreams_plugins_order_and_weights():
    fwk = frameworks(load_config([], []))["default-scheduler"]
    assert names(fwk.filter_plugins) == DEFAULT_FILTERS
    assert names(fwk.score_plugins) == ["TaintToleration", "NodeAffinity", "NodeResourcesFit",
                                        "PodTopologySpread", "InterPodAffinity",
                                        "NodeResourcesBalancedAllocation", "ImageLocality"]
    assert fwk.weights == DEFAULT_WEIGHTS
    assert names(fwk.post_filter_plugins) == ["DefaultPreemption"]


def test_profiles_disable_and_reweight_plugins():
    cfg = load_config([ksc({"percentageOfNodesToScore": 30, "profiles": [
        {"schedulerName": "default-scheduler"},
        {"schedulerName": "bin-packer", "percentageOfNodesToScore": 100,
         "plugins": {"score": {"enabled": [{"name": "NodeResourcesFit", "weight": 5}],
                               "disabled": [{"name": "ImageLocality"}]},
                     "filter": {"disabled": [{"name": "NodePorts"}]}},
         "pluginConfig": [{"name": "NodeResourcesFit",
                           "args": {"scoringStrategy": {"type": "MostAllocated"}}}]}]})], [])
    fw = frameworks(cfg)
    assert cfg.percentage_of_nodes_to_score == 30
    packer = fw["bin-packer"]
    assert packer.percentage_of_nodes_to_score == 100
    assert "NodePorts" not in names(packer.filter_plugins)
    assert "ImageLocality" not in names(packer.score_plugins)
    assert packer.weights["NodeResourcesFit"] == 5
    assert packer.plugins["NodeResourcesFit"].scorer.kind == "MostAllocated"
    assert fw["default-scheduler"].weights == DEFAULT_WEIGHTS


def test_disabling_every_score_plugin_leaves_filters():
    cfg = load_config([ksc({"profiles": [{"schedulerName": "s", "plugins": {
        "score": {"disabled": [{"name": "*"}]}, "multiPoint": {"disabled": [
            {"name": "DefaultPreemption"}]}}}]})], [])
    fw = frameworks(cfg)["s"]
    assert fw.score_plugins == [] and names(fw.filter_plugins) == DEFAULT_FILTERS
    assert fw.post_filter_plugins == []


@pytest.mark.parametrize("data,where", [
    ({"percentageOfNodesToScore": 101}, "percentageOfNodesToScore: Invalid value: 101"),
    ({"profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]},
     'profiles[1].schedulerName: Duplicate value: "a"'),
    ({"profiles": [{"plugins": {"filter": {"enabled": [{"name": "Nope"}]}}}]},
     'profiles[0].plugins.filter.enabled[0].name: Invalid value: "Nope"'),
    ({"profiles": [{"pluginConfig": [{"name": "InterPodAffinity",
                                      "args": {"hardPodAffinityWeight": 200}}]}]},
     "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 200"),
    ({"profiles": [{"plugins": {"score": {"enabled": [{"name": "NodePorts"}]}}}]},
     'profiles[0].plugins.score: plugin "NodePorts" does not extend score plugin'),
    ({"podInitialBackoffSeconds": 5, "podMaxBackoffSeconds": 2}, "podMaxBackoffSeconds"),
])
def test_invalid_configurations_name_the_field(data, where):
    with pytest.raises(ManifestError) as err:
        load_config([ksc(data)], [])
    assert str(err.value).startswith("sched.yaml (document 1): ")
    assert where in str(err.value)


def test_policy_is_translated_with_a_warning():
    cfg = load_config([], [policy({
        "predicates": [{"name": "PodFitsResources"}, {"name": "PodToleratesNodeTaints"},
                       {"name": "MatchNodeSelector"}, {"name": "CheckNodeMemoryPressure"}],
        "priorities": [{"name": "MostRequestedPriority", "weight": 3},
                       {"name": "NodeAffinityPriority", "weight": 1}],
        "hardPodAffinitySymmetricWeight": 10})])
    assert cfg.warnings and "removed upstream in Kubernetes 1.23" in cfg.warnings[0]
    fw = frameworks(cfg)["default-scheduler"]
    # NodeUnschedulable is mandatory (legacy_registry.go MandatoryPredicates) though not listed.
    assert names(fw.filter_plugins) == ["NodeUnschedulable", "TaintToleration", "NodeAffinity",
                                        "NodeResourcesFit"]
    assert any("predicate CheckNodeMemoryPressure" in w for w in cfg.warnings)
    assert fw.weights == {"NodeResourcesFit": 3, "NodeAffinity": 1}
    assert fw.plugins["NodeResourcesFit"].scorer.kind == "MostAllocated"


def test_policy_with_an_unknown_predicate_is_refused():
    with pytest.raises(ManifestError, match=r'predicates\[0\].name: Invalid value: "Psychic"'):
        load_config([], [policy({"predicates": [{"name": "Psychic"}]})])
