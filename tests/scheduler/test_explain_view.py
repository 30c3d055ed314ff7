"""``ksandbox explain -o wide``: the node x plugin matrix (ksandbox.views.explain)."""

from ksandbox.session import Session
from ksandbox.views.explain import render_explain_wide

CLUSTER = """
apiVersion: v1
kind: Node
metadata: {name: node-1}
spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-2}
status: {capacity: {cpu: "1", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Node
metadata: {name: node-3}
status: {capacity: {cpu: "4", memory: 8Gi, pods: "110"}}
---
apiVersion: v1
kind: Pod
metadata: {name: web-1, namespace: default}
spec:
  containers: [{name: c, image: nginx, resources: {requests: {cpu: "2"}}}]
"""


def test_wide_form_shows_each_filter_the_failing_reason_and_the_weighted_scores():
    s = Session.from_text(CLUSTER)
    s.settle(60)
    text = render_explain_wide(s.explain("default", "web-1"))
    lines = text.splitlines()
    assert "Selected:   node-3" in lines
    row1 = next(line for line in lines if line.strip().startswith("node-1"))
    assert "FAIL" in row1 and "TaintToleration: node(s) had untolerated taint {dedicated: gpu}" \
        in row1
    row2 = next(line for line in lines if line.strip().startswith("node-2"))
    assert "NodeResourcesFit: Insufficient cpu" in row2
    scored = next(line for line in lines if line.strip().startswith("* "))
    assert "node-3" in scored and "100x3=300" in scored
    assert "Taints(3)" in text and "TOTAL" in text


def test_wide_form_for_a_pod_no_scheduler_serves():
    s = Session.from_text(CLUSTER + """---
apiVersion: v1
kind: Pod
metadata: {name: lost, namespace: default}
spec:
  schedulerName: my-scheduler
  containers: [{name: c, image: nginx}]
""")
    s.settle(60)
    text = render_explain_wide(s.explain("default", "lost"))
    assert "Selected:   <none>" in text and 'no scheduler named "my-scheduler"' in text
