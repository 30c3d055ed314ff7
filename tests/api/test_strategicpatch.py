"""api/strategicpatch: kubectl apply's three-way patch and the API server's merge of it.

The cases are apimachinery strategicpatch patch_test.go's (strategicMergePatchRawTestCases:
original = the last applied manifest, modified = the new one, current = the live object;
threeWay = the patch CreateThreeWayMergePatch makes, result = the live object after the
server applies it). Upstream's harness compares merging lists sorted by their key; here the
results are in the order upstream's merge gives them (worked through mergeSlice and
mergePatchIntoOriginal by hand for the two "add map and delete map" cases). The test type's fields are renamed to the Kubernetes fields with the same
patch metadata: mergingList (merge on ``name``) -> containers, mergingIntList (a merging list
of scalars) -> finalizers; value/other are plain fields."""

from __future__ import annotations

import pytest
import yaml

from ksandbox.api.strategicpatch import apply_patch, three_way

CASES = {
    "delete items in lists of scalars": ("""
original: {finalizers: [1, 2, 3]}
modified: {finalizers: [1, 2]}
current: {finalizers: [1, 2, 3, 4]}
threeWay: {$setElementOrder/finalizers: [1, 2], $deleteFromPrimitiveList/finalizers: [3]}
result: {finalizers: [1, 2, 4]}
"""),
    "add and delete items in lists of scalars": ("""
original: {finalizers: [1, 2, 3]}
modified: {finalizers: [1, 2, 4]}
current: {finalizers: [1, 2, 3, 4]}
threeWay: {$setElementOrder/finalizers: [1, 2, 4], $deleteFromPrimitiveList/finalizers: [3]}
result: {finalizers: [1, 2, 4]}
"""),
    "merge lists of maps": ("""
original: {containers: [{name: 1}, {name: 2, value: 2}]}
modified: {containers: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
current: {containers: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
threeWay:
  $setElementOrder/containers: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
  containers: [{name: 4, value: 4}, {name: 3, value: 3}]
result:
  containers: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b},
               {name: 3, value: 3}]
"""),
    "merge lists of maps with conflict": ("""
original: {containers: [{name: 1}, {name: 2, value: 2}]}
modified: {containers: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
current: {containers: [{name: 1, other: a}, {name: 2, value: 3, other: b}]}
threeWay:
  $setElementOrder/containers: [{name: 1}, {name: 2}, {name: 3}]
  containers: [{name: 2, value: 2}, {name: 3, value: 3}]
result:
  containers: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]
"""),
    "add field to map in merging list with conflict": ("""
original: {containers: [{name: 1}, {name: 2, value: 2}]}
modified: {containers: [{name: 1, value: 1}, {name: 2, value: 2}]}
current: {containers: [{name: 1, other: a}, {name: 3, value: 2, other: b}]}
threeWay:
  $setElementOrder/containers: [{name: 1}, {name: 2}]
  containers: [{name: 1, value: 1}, {name: 2, value: 2}]
result:
  containers: [{name: 1, value: 1, other: a}, {name: 2, value: 2},
               {name: 3, value: 2, other: b}]
"""),
    "add duplicate field to map in merging list": ("""
original: {containers: [{name: 1}, {name: 2, value: 2}]}
modified: {containers: [{name: 1, value: 1}, {name: 2, value: 2}]}
current: {containers: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
threeWay: {}
result: {containers: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
"""),
    "add an item that already exists in current object in merging list": ("""
original: {containers: [{name: 1, value: a}, {name: 2}]}
modified: {containers: [{name: 1, value: a}, {name: 2}, {name: 3}]}
current: {containers: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
threeWay: {}
result: {containers: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
"""),
    "delete map from merging list": ("""
original: {containers: [{name: 1}, {name: 2}]}
modified: {containers: [{name: 2}]}
current: {containers: [{name: 1}, {name: 2, other: b}]}
threeWay:
  $setElementOrder/containers: [{name: 2}]
  containers: [{name: 1, $patch: delete}]
result: {containers: [{name: 2, other: b}]}
"""),
    "delete missing map from merging list with conflict": ("""
original: {containers: [{name: 1}, {name: 2}]}
modified: {containers: [{name: 2}]}
current: {containers: [{name: 3, other: a}]}
threeWay:
  $setElementOrder/containers: [{name: 2}]
  containers: [{name: 2}, {name: 1, $patch: delete}]
result: {containers: [{name: 2}, {name: 3, other: a}]}
"""),
    "add map and delete map from merging list": ("""
original: {containers: [{name: 1}, {name: 2}]}
modified: {containers: [{name: 2}, {name: 3}]}
current: {containers: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]}
threeWay:
  $setElementOrder/containers: [{name: 2}, {name: 3}]
  containers: [{name: 3}, {name: 1, $patch: delete}]
result: {containers: [{name: 2, other: b}, {name: 3}, {name: 4, other: c}]}
"""),
    "add map and delete map from merging list with conflict": ("""
original: {containers: [{name: 1}, {name: 2}]}
modified: {containers: [{name: 2}, {name: 3}]}
current: {containers: [{name: 1, other: a}, {name: 4, other: c}]}
threeWay:
  $setElementOrder/containers: [{name: 2}, {name: 3}]
  containers: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]
result: {containers: [{name: 2}, {name: 3}, {name: 4, other: c}]}
"""),
    "delete field from map in merging list": ("""
original: {containers: [{name: 1, value: 1}, {name: 2, value: 2}]}
modified: {containers: [{name: 1}, {name: 2, value: 2}]}
current: {containers: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
threeWay:
  $setElementOrder/containers: [{name: 1}, {name: 2}]
  containers: [{name: 1, value: null}]
result: {containers: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
"""),
    # createStrategicMergePatchTestCaseData: maps and lists without a merge key
    "nested map change kept beside a field someone else set": ("""
original: {name: 1, value: 1, labels: {key1: a}}
modified: {name: 1, value: 1, labels: {key1: b, key3: c}}
current: {name: 1, value: 1, other: x, labels: {key1: a, key2: z}}
threeWay: {labels: {key1: b, key3: c}}
result: {name: 1, value: 1, other: x, labels: {key1: b, key2: z, key3: c}}
"""),
    "a field dropped since the last apply is deleted, one never applied stays": ("""
original: {name: 1, value: 1, other: a}
modified: {name: 1, value: 1}
current: {name: 1, value: 1, other: a, extra: b}
threeWay: {other: null}
result: {name: 1, value: 1, extra: b}
"""),
    "a list without a merge key is replaced whole": ("""
original: {tolerations: [{name: 1}, {name: 2}]}
modified: {tolerations: [{name: 1}]}
current: {tolerations: [{name: 1}, {name: 2}, {name: 3}]}
threeWay: {tolerations: [{name: 1}]}
result: {tolerations: [{name: 1}]}
"""),
    # retainKeys (DeploymentSpec.strategy): a type switch clears the old type's settings
    "retainKeys map with a field replaced": ("""
original: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1}}}
modified: {strategy: {type: Recreate}}
current: {strategy: {type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}}
threeWay: {strategy: {$retainKeys: [type], type: Recreate, rollingUpdate: null}}
result: {strategy: {type: Recreate}}
"""),
    "no last applied configuration: nothing is deleted": ("""
original: null
modified: {name: 1, labels: {a: b}}
current: {name: 1, value: 1, labels: {a: b, c: d}}
threeWay: {}
result: {name: 1, value: 1, labels: {a: b, c: d}}
"""),
}


@pytest.mark.parametrize("name", list(CASES))
def test_three_way_patch_and_its_result_are_upstreams(name):
    case = yaml.safe_load(CASES[name])
    patch = three_way(case["original"], case["modified"], case["current"])
    assert patch == case["threeWay"]
    assert apply_patch(case["current"], patch) == case["result"]


def test_a_plain_patch_puts_a_new_item_before_the_live_ones_and_keeps_the_patch_order():
    """mergeSlice without $setElementOrder (customStrategicMergePatchTestCaseData)."""
    live = {"containers": [{"name": 1}, {"name": 2, "value": "b"}, {"name": 3}]}
    patch = {"containers": [{"name": 3, "value": "c"}, {"name": 1, "value": "a"}]}
    assert apply_patch(live, patch) == {"containers": [
        {"name": 2, "value": "b"}, {"name": 3, "value": "c"}, {"name": 1, "value": "a"}]}
    assert apply_patch({"finalizers": [1, 2, 3]}, {"finalizers": [3, 1]}) == \
        {"finalizers": [2, 3, 1]}
    assert apply_patch({"env": [{"name": "K"}]}, {"env": [{"name": "L"}]}) == \
        {"env": [{"name": "L"}, {"name": "K"}]}


def test_the_inputs_are_not_changed():
    original = {"containers": [{"name": 1}, {"name": 2}]}
    modified = {"containers": [{"name": 2}, {"name": 3}]}
    current = {"containers": [{"name": 1, "other": "a"}, {"name": 4}]}
    copies = yaml.safe_load(yaml.safe_dump([original, modified, current]))
    patch = three_way(original, modified, current)
    apply_patch(current, patch)
    assert [original, modified, current] == copies
